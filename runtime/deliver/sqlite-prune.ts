/**
 * Retention for the SQLite outbox: deletes finished history in small `BEGIN IMMEDIATE` batches on
 * the outbox's own connection, pausing between them, so a worker or a receiver on the same event loop
 * (better-sqlite3 is synchronous) waits for one batch at most, never for the whole prune.
 *
 * Both passes walk a table in rowid order (insertion order, so oldest first) from a cursor and stop at
 * the first batch holding nothing older than the cutoff: a run reads the old rows it deletes or keeps,
 * never the recent bulk, and needs no index beyond the outbox's own. Rows it keeps (a message with a
 * delivery still pending, say) are re-read on the next run until they finish.
 *
 * Each batch is held to a time budget (stores/time-budget.ts): `batchSize` is the most rows one
 * examines, and a batch that took longer than the budget makes the next one smaller.
 *
 * The space is reclaimed when the file was made with `auto_vacuum = INCREMENTAL`: freed pages are
 * handed back a few at a time (`PRAGMA incremental_vacuum`). See docs/retention.md for existing files.
 * WAL checkpoints run in a worker thread meanwhile (stores/sqlite-checkpoint.ts), so their copying
 * and fsync do not land on this event loop either.
 */
import type { BetterSqlite3 } from '../drivers/better-sqlite3.js';
import { offloadCheckpoints } from '../stores/sqlite-checkpoint.js';
import { budgetedSize } from '../stores/time-budget.js';
import { vacuumSizer, vacuumStep } from '../stores/vacuum-step.js';
import {
  type OutboxTables,
  type PruneOutboxOptions,
  type PruneOutboxResult,
  pause,
  pruneLimits,
  pruneTables,
} from './outbox-prune.js';

type Db = BetterSqlite3.Database;

const DEFAULT_TABLES: OutboxTables = {
  messages: 'webhook_messages',
  deliveries: 'webhook_deliveries',
  attempts: 'webhook_attempts',
};

/** The fewest rows a batch shrinks to. */
const MIN_BATCH = 10;

/** A message is held while any delivery is unfinished or finished at/after the cutoff. */
const held = (d: string) =>
  `EXISTS (SELECT 1 FROM ${d} d WHERE d.message_id = m.id
     AND NOT (d.status IN ('succeeded', 'dead') AND d.finished_at < @before))`;

export async function pruneSqliteOutbox(db: Db, options: PruneOutboxOptions): Promise<PruneOutboxResult> {
  const T = pruneTables(options.tables, DEFAULT_TABLES, 'pruneSqliteOutbox');
  const limits = pruneLimits(options, 'pruneSqliteOutbox');
  const counts = { messages: 0, deliveries: 0, attempts: 0, batches: 0, vacuumedPages: 0 };

  const scanMessages = db.prepare<
    [{ cursor: number; before: number; limit: number }],
    { r: number; id: string; created_at: number; held: number }
  >(
    `SELECT m.rowid AS r, m.id, m.created_at, ${held(T.deliveries)} AS held
     FROM ${T.messages} m WHERE m.rowid > @cursor ORDER BY m.rowid LIMIT @limit`,
  );
  const dropAttempts = db.prepare<[string]>(
    `DELETE FROM ${T.attempts} WHERE delivery_id IN
       (SELECT id FROM ${T.deliveries} WHERE message_id IN (SELECT value FROM json_each(?)))`,
  );
  const dropDeliveries = db.prepare<[string]>(
    `DELETE FROM ${T.deliveries} WHERE message_id IN (SELECT value FROM json_each(?))`,
  );
  const dropMessages = db.prepare<[string]>(
    `DELETE FROM ${T.messages} WHERE id IN (SELECT value FROM json_each(?))`,
  );
  const scanAttempts = db.prepare<
    [number, number],
    { id: number; started_at: number; status: string | null; finished_at: number | null; orphan: number }
  >(
    `SELECT a.id, a.started_at, d.status, d.finished_at, d.id IS NULL AS orphan
     FROM ${T.attempts} a LEFT JOIN ${T.deliveries} d ON d.id = a.delivery_id
     WHERE a.id > ? ORDER BY a.id LIMIT ?`,
  );
  const dropAttemptIds = db.prepare<[string]>(
    `DELETE FROM ${T.attempts} WHERE id IN (SELECT value FROM json_each(?))`,
  );

  /** One batch of messages; returns the next cursor, or undefined when the pass is done. */
  const messageBatch = db.transaction((cursor: number, size: number): number | undefined => {
    const rows = scanMessages.all({ cursor, before: limits.messagesBefore, limit: size });
    const doomed = rows.filter((r) => r.created_at < limits.messagesBefore && r.held === 0).map((r) => r.id);
    if (doomed.length > 0) {
      const ids = JSON.stringify(doomed);
      counts.attempts += dropAttempts.run(ids).changes;
      counts.deliveries += dropDeliveries.run(ids).changes;
      counts.messages += dropMessages.run(ids).changes;
    }
    const last = rows.at(-1);
    const anyOld = rows.some((r) => r.created_at < limits.messagesBefore);
    return last !== undefined && anyOld && rows.length === size ? last.r : undefined;
  }).immediate;

  const attemptBatch = db.transaction((cursor: number, size: number): number | undefined => {
    const rows = scanAttempts.all(cursor, size);
    const before = limits.attemptsBefore;
    const doomed = rows
      .filter(
        (r) =>
          r.started_at < before &&
          (r.orphan === 1 ||
            ((r.status === 'succeeded' || r.status === 'dead') &&
              r.finished_at !== null &&
              r.finished_at < before)),
      )
      .map((r) => r.id);
    if (doomed.length > 0) counts.attempts += dropAttemptIds.run(JSON.stringify(doomed)).changes;
    const last = rows.at(-1);
    const anyOld = rows.some((r) => r.started_at < before);
    return last !== undefined && anyOld && rows.length === size ? last.id : undefined;
  }).immediate;

  return offloadCheckpoints(db, async (checkpoint) => {
    const pass = async (batch: (cursor: number, size: number) => number | undefined): Promise<boolean> => {
      const sizer = budgetedSize(limits.batch, { min: MIN_BATCH });
      let cursor: number | undefined = 0;
      while (cursor !== undefined) {
        if (options.signal?.aborted) return false;
        const started = performance.now();
        cursor = batch(cursor, sizer.size);
        sizer.took(performance.now() - started);
        counts.batches++;
        await checkpoint();
        if (cursor !== undefined) await pause(options.pauseMs);
      }
      return true;
    };
    if ((await pass(messageBatch)) && (await pass(attemptBatch))) {
      counts.vacuumedPages = await incrementalVacuum(db, { ...options, checkpoint });
    }
    return counts;
  });
}

/**
 * Hands freed pages back to the file system in budgeted steps (stores/vacuum-step.ts), pausing
 * between them; returns how many. Does nothing unless the file uses `auto_vacuum = INCREMENTAL` (2).
 */
export async function incrementalVacuum(
  db: Db,
  options: {
    readonly signal?: AbortSignal;
    readonly pauseMs?: number;
    readonly checkpoint?: () => void | Promise<void>;
  } = {},
): Promise<number> {
  if (Number(db.pragma('auto_vacuum', { simple: true })) !== 2) return 0;
  const step = vacuumSizer();
  let freed = 0;
  for (;;) {
    if (options.signal?.aborted) return freed;
    const { free, left } = vacuumStep(db, step);
    if (free === 0) return freed;
    // Another connection may be freeing pages meanwhile; stop when a step made no progress.
    if (left >= free) return freed;
    freed += free - left;
    await options.checkpoint?.();
    await pause(options.pauseMs);
  }
}
