/**
 * The fallback when pg_stat_statements is not loaded (bench/pg-model.bench.ts): the database's
 * transaction and tuple counters (pg_stat_database) and the run's tables' (pg_stat_user_tables).
 *
 * These are cumulative statistics that each backend flushes on its own schedule: a backend that goes
 * idle with counts pending flushes them up to 10 s later (PostgreSQL 15's PGSTAT_IDLE_INTERVAL), so
 * the bench waits `settleMs` after the workers pause before reading them. pg_stat_database counts
 * every client of the database: the bench subtracts the statements it issued itself and says so;
 * other clients (tests running meanwhile) are not told apart. The tables' inserts include the
 * backlog the bench copied in before the run (their counters may flush during the run).
 */
import type pg from 'pg';
import { fieldDelta } from './field-delta.js';

export interface DatabaseCounters {
  readonly xactCommit: number;
  readonly xactRollback: number;
  readonly tupInserted: number;
  readonly tupUpdated: number;
  readonly tupDeleted: number;
  readonly tupReturned: number;
  readonly tupFetched: number;
}

export interface TableCounters {
  readonly ins: number;
  readonly upd: number;
  readonly hotUpd: number;
  readonly del: number;
}

export interface Counters {
  readonly database: DatabaseCounters;
  readonly tables: ReadonlyMap<string, TableCounters>;
}

export async function readCounters(db: pg.Pool, schema: string): Promise<Counters> {
  const d = (
    await db.query<Record<string, string>>(
      `SELECT xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted, tup_returned, tup_fetched
       FROM pg_stat_database WHERE datname = current_database()`,
    )
  ).rows[0] as Record<string, string>;
  const t = await db.query<Record<string, string>>(
    `SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del FROM pg_stat_user_tables WHERE schemaname = $1`,
    [schema],
  );
  return {
    database: {
      xactCommit: Number(d.xact_commit),
      xactRollback: Number(d.xact_rollback),
      tupInserted: Number(d.tup_inserted),
      tupUpdated: Number(d.tup_updated),
      tupDeleted: Number(d.tup_deleted),
      tupReturned: Number(d.tup_returned),
      tupFetched: Number(d.tup_fetched),
    },
    tables: new Map(
      t.rows.map((r) => [
        r.relname as string,
        {
          ins: Number(r.n_tup_ins),
          upd: Number(r.n_tup_upd),
          hotUpd: Number(r.n_tup_hot_upd),
          del: Number(r.n_tup_del),
        },
      ]),
    ),
  };
}

export interface CountersDelta {
  readonly database: DatabaseCounters;
  readonly tables: ReadonlyMap<string, TableCounters>;
}

/** after − before; `ownStatements` (the bench's own, one transaction each) come off xact_commit. */
export function countersDelta(before: Counters, after: Counters, ownStatements: number): CountersDelta {
  const b = before.database;
  const a = after.database;
  const tables = new Map<string, TableCounters>();
  for (const [name, x] of after.tables) {
    const y = before.tables.get(name) ?? { ins: 0, upd: 0, hotUpd: 0, del: 0 };
    tables.set(name, fieldDelta(x, y));
  }
  const database = fieldDelta(a, b);
  return { database: { ...database, xactCommit: database.xactCommit - ownStatements }, tables };
}
