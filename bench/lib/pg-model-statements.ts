/**
 * Per-statement cost of one measured run from pg_stat_statements (bench/pg-model.bench.ts): a
 * snapshot before the workers start and one after they pause, the difference per normalized
 * statement, grouped by what the statement does for a job.
 *
 * Only statements naming the run's own schema are kept (each run has a schema of its own, so other
 * clients of the server never mix in), plus transaction control (BEGIN / COMMIT / ROLLBACK), which
 * names no table: that group counts every client of the database. The bench's own polling for the
 * end of the run names the schema too; `pollKeys` tells which entries those are, by the one poll the
 * bench issues between two snapshots after the run.
 */
import type pg from 'pg';
import { fieldDelta } from './field-delta.js';

export interface Statement {
  readonly query: string;
  readonly calls: number;
  readonly rows: number;
  /** total_exec_time, ms */
  readonly ms: number;
  readonly dirtied: number;
  readonly walRecords: number;
  readonly walBytes: number;
}

export type Snapshot = ReadonlyMap<string, Statement>;

export const GROUPS = ['claim', 'complete', 'record attempt', 'transaction control', 'other'] as const;
export type Group = (typeof GROUPS)[number];

/** Whether pg_stat_statements is both created in this database and loaded by the server. */
export async function statementsAvailable(db: pg.Pool): Promise<boolean> {
  try {
    await db.query('SELECT 1 FROM pg_stat_statements LIMIT 1');
    return true;
  } catch {
    return false;
  }
}

/** Entries evicted so far (pg_stat_statements.max reached): a run with evictions has partial deltas. */
export async function deallocations(db: pg.Pool): Promise<number> {
  try {
    return Number((await db.query('SELECT dealloc FROM pg_stat_statements_info')).rows[0]?.dealloc ?? 0);
  } catch {
    return 0;
  }
}

export async function snapshot(db: pg.Pool, schema: string): Promise<Snapshot> {
  const { rows } = await db.query<Record<string, string>>(
    `SELECT userid::text || '/' || queryid::text || '/' || toplevel::text AS key, query, calls, rows,
       total_exec_time AS ms, shared_blks_dirtied AS dirtied, wal_records, wal_bytes
     FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND (strpos(query, $1) > 0 OR query ~* '^\\s*(begin|commit|rollback|start transaction)\\M')`,
    [schema],
  );
  const out = new Map<string, Statement>();
  for (const r of rows) {
    out.set(r.key as string, {
      query: r.query as string,
      calls: Number(r.calls),
      rows: Number(r.rows),
      ms: Number(r.ms),
      dirtied: Number(r.dirtied),
      walRecords: Number(r.wal_records),
      walBytes: Number(r.wal_bytes),
    });
  }
  return out;
}

const ZERO: Statement = { query: '', calls: 0, rows: 0, ms: 0, dirtied: 0, walRecords: 0, walBytes: 0 };

/** after − before per entry, entries with calls in between only. */
export function delta(before: Snapshot, after: Snapshot): Map<string, Statement> {
  const out = new Map<string, Statement>();
  for (const [key, a] of after) {
    const b = before.get(key) ?? ZERO;
    if (a.calls - b.calls <= 0) continue;
    out.set(key, fieldDelta(a, b));
  }
  return out;
}

/**
 * Removes `polls` calls of the bench's polling statements from a run's delta, with their share of
 * rows, time and blocks (the workers may run the same statement; what is left is theirs).
 */
export function withoutPolls(run: Map<string, Statement>, keys: ReadonlySet<string>, polls: number): void {
  for (const key of keys) {
    const s = run.get(key);
    if (!s) continue;
    const mine = Math.min(polls, s.calls);
    const keep = (s.calls - mine) / s.calls;
    if (keep <= 0) {
      run.delete(key);
      continue;
    }
    run.set(key, {
      query: s.query,
      calls: s.calls - mine,
      rows: Math.round(s.rows * keep),
      ms: s.ms * keep,
      dirtied: Math.round(s.dirtied * keep),
      walRecords: Math.round(s.walRecords * keep),
      walBytes: Math.round(s.walBytes * keep),
    });
  }
}

/** The entries of the schema that one poll moved (from two snapshots around it). */
export function pollKeys(before: Snapshot, after: Snapshot, schema: string): Set<string> {
  return new Set([...delta(before, after)].filter(([, s]) => s.query.includes(schema)).map(([key]) => key));
}

/**
 * What a statement does for a job, read from its normalized text (constants are `$n` there, so it
 * goes by shape, and follows changes to the statements): a claim locks due rows (`SKIP LOCKED`) or
 * leases them (`attempts = attempts + 1`); a release gives a lease back (`attempts - `, other); any
 * other update of the deliveries table is a completion (today it records the attempt in the same
 * statement); an insert into the attempts table alone is an attempt record.
 */
export function groupOf(query: string): Group {
  const q = query.replace(/\s+/g, ' ');
  if (/^\s*(begin|commit|rollback|start transaction)\b/i.test(q)) return 'transaction control';
  if (/skip locked/i.test(q) || /attempts = \S*attempts \+/i.test(q)) return 'claim';
  if (/attempts = \S*attempts - /i.test(q)) return 'other';
  if (/update \S*deliveries/i.test(q)) return 'complete';
  if (/insert into \S*attempts/i.test(q)) return 'record attempt';
  return 'other';
}

/** Sums per group. */
export function byGroup(run: ReadonlyMap<string, Statement>): Map<Group, Statement & { statements: number }> {
  const out = new Map<Group, Statement & { statements: number }>();
  for (const s of run.values()) {
    const g = groupOf(s.query);
    const o = out.get(g) ?? { ...ZERO, statements: 0 };
    out.set(g, {
      query: '',
      statements: o.statements + 1,
      calls: o.calls + s.calls,
      rows: o.rows + s.rows,
      ms: o.ms + s.ms,
      dirtied: o.dirtied + s.dirtied,
      walRecords: o.walRecords + s.walRecords,
      walBytes: o.walBytes + s.walBytes,
    });
  }
  return out;
}
