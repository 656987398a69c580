/**
 * Deterministic, atomic output. Everything is generated in memory first; then each contract folder
 * that differs from disk is written into a temp dir next to it and swapped in with renames, so a
 * reader sees the old folder or the new one, never a half-written mix. `--check` uses the same diff
 * and writes nothing.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { GeneratorError } from './errors.js';

/** One generated folder: `<out>/<folder>/` with files keyed by their posix path inside it. */
export interface OutputFolder {
  readonly folder: string;
  readonly files: ReadonlyMap<string, string>;
}

export type FileChange = 'added' | 'changed' | 'removed';

export interface FolderDiff {
  readonly folder: string;
  /** Posix paths relative to the out dir (`petstore-openapi/types.ts`), sorted. */
  readonly changes: readonly { readonly path: string; readonly change: FileChange }[];
}

const TEMP_MARK = '.gen-webhooks-tmp-';

function listFiles(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(path.join(dir, entry.name), rel));
    else out.push(rel);
  }
  return out;
}

function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** What writing `folders` into `outDir` would change, folder by folder (unchanged folders omitted). */
export function diffOutput(outDir: string, folders: readonly OutputFolder[]): FolderDiff[] {
  const diffs: FolderDiff[] = [];
  for (const { folder, files } of folders) {
    const dir = path.join(outDir, folder);
    const changes: { path: string; change: FileChange }[] = [];
    for (const [rel, contents] of files) {
      const current = readIfExists(path.join(dir, rel));
      if (current === undefined) changes.push({ path: `${folder}/${rel}`, change: 'added' });
      else if (current !== contents) changes.push({ path: `${folder}/${rel}`, change: 'changed' });
    }
    for (const rel of listFiles(dir)) {
      if (!files.has(rel)) changes.push({ path: `${folder}/${rel}`, change: 'removed' });
    }
    changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    if (changes.length > 0) diffs.push({ folder, changes });
  }
  return diffs;
}

function assertSafeFolder(folder: string): void {
  // Folder names come from contract names; never let one escape the out dir.
  if (!folder || folder === '.' || folder === '..' || /[\\/]/.test(folder) || folder.startsWith(TEMP_MARK)) {
    throw new GeneratorError('write_failed', `invalid output folder name '${folder}'`);
  }
}

function fail(error: unknown, target: string): GeneratorError {
  if (error instanceof GeneratorError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new GeneratorError('write_failed', `cannot write output: ${message}`, {
    file: target,
    cause: error,
  });
}

/**
 * Writes the folders that differ from disk. Returns the diffs that were applied. On any failure
 * before the swap nothing on disk changes; temp dirs are removed.
 */
export function writeOutput(outDir: string, folders: readonly OutputFolder[]): FolderDiff[] {
  for (const { folder } of folders) assertSafeFolder(folder);
  const diffs = diffOutput(outDir, folders);
  if (diffs.length === 0) return diffs;
  const changed = new Set(diffs.map((d) => d.folder));
  const staged: { folder: string; temp: string }[] = [];
  try {
    mkdirSync(outDir, { recursive: true });
    removeStaleTemps(outDir);
    for (const { folder, files } of folders) {
      if (!changed.has(folder)) continue;
      const temp = mkdtempSync(path.join(outDir, `${TEMP_MARK}${folder}-`));
      staged.push({ folder, temp });
      for (const [rel, contents] of files) {
        const file = path.join(temp, ...rel.split('/'));
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, contents);
      }
    }
  } catch (error) {
    for (const { temp } of staged) rmSync(temp, { recursive: true, force: true });
    throw fail(error, outDir);
  }
  for (const { folder, temp } of staged) {
    const target = path.join(outDir, folder);
    const old = `${temp}.old`;
    try {
      const hadTarget = existsSync(target);
      if (hadTarget) renameSync(target, old);
      try {
        renameSync(temp, target);
      } catch (error) {
        if (hadTarget) renameSync(old, target);
        throw error;
      }
      rmSync(old, { recursive: true, force: true });
    } catch (error) {
      for (const s of staged) rmSync(s.temp, { recursive: true, force: true });
      throw fail(error, target);
    }
  }
  return diffs;
}

/** Temp dirs left behind by a run that was killed mid-write (old enough not to be a concurrent run's). */
function removeStaleTemps(outDir: string): void {
  const cutoff = Date.now() - 10 * 60_000;
  for (const entry of readdirSync(outDir)) {
    if (!entry.startsWith(TEMP_MARK)) continue;
    const dir = path.join(outDir, entry);
    if (statSync(dir).mtimeMs < cutoff) rmSync(dir, { recursive: true, force: true });
  }
}
