/**
 * The skip summary: each worker process appends the skips `requires.ts` decides to a file in the
 * folder globalSetup names (`GW_SKIP_LOG`), and the skip reporter prints them at the end of the run,
 * one line per skipped group, so a newcomer sees what did not run and why.
 */
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const SKIP_LOG_ENV = 'GW_SKIP_LOG';

export interface SkipRecord {
  /** The test file that decided to skip (absolute), when known. */
  readonly file: string | undefined;
  /** The group that skips: "the PostgreSQL store tests". */
  readonly what: string;
  /** Why: "DATABASE_URL is not set (this needs PostgreSQL)". */
  readonly problem: string;
}

/** Appends one record; a no-op outside a run that set up the log (unit tests pass their own env). */
export function recordSkip(record: SkipRecord, env: Readonly<Record<string, string | undefined>>): void {
  const dir = env[SKIP_LOG_ENV];
  if (dir === undefined || dir === '') return;
  // One file per process and one short line per write: appends never interleave mid-line.
  appendFileSync(path.join(dir, `skips-${process.pid}.jsonl`), `${JSON.stringify(record)}\n`);
}

export function readSkips(dir: string): SkipRecord[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return [];
  }
  return names.flatMap((name) =>
    readFileSync(path.join(dir, name), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as SkipRecord),
  );
}

/**
 * One line per skipped group (same `what` and `problem`), with its files and how many tests each
 * skipped; then a line for each file whose skipped tests no recorded reason covers (a bare
 * `skipIf`). `skipped` maps a file to its count of skipped tests. Empty when nothing skipped.
 */
export function formatSkipSummary(
  records: readonly SkipRecord[],
  skipped: ReadonlyMap<string, number>,
  root: string,
): string[] {
  const rel = (file: string) => path.relative(root, file) || file;
  const groups = new Map<string, { what: string; problem: string; files: Set<string> }>();
  for (const r of records) {
    const key = `${r.what}\u0000${r.problem}`;
    const group = groups.get(key) ?? { what: r.what, problem: r.problem, files: new Set<string>() };
    if (r.file !== undefined) group.files.add(r.file);
    groups.set(key, group);
  }
  const explained = new Set<string>();
  const lines: string[] = [];
  for (const g of [...groups.values()].sort((a, b) => a.what.localeCompare(b.what))) {
    const files = [...g.files].sort().map((file) => {
      explained.add(file);
      return `${rel(file)}: ${skipped.get(file) ?? 0} skipped`;
    });
    lines.push(`  ${g.what} — ${g.problem}${files.length === 0 ? '' : ` (${files.join(', ')})`}`);
  }
  for (const [file, count] of [...skipped].sort(([a], [b]) => a.localeCompare(b))) {
    if (count > 0 && !explained.has(file)) {
      lines.push(
        `  ${count} test${count === 1 ? '' : 's'} in ${rel(file)} — no reason recorded (see its skipIf)`,
      );
    }
  }
  if (lines.length === 0) return [];
  const total = [...skipped.values()].reduce((sum, n) => sum + n, 0);
  return [`Skipped ${total} test${total === 1 ? '' : 's'} (under CI=true these fail instead):`, ...lines];
}
