/**
 * Retention for the PostgreSQL outbox: deletes finished history in small transactions on the pool,
 * pausing between them, so workers never queue behind a long DELETE and autovacuum gets to reuse the
 * space as it goes (dead tuples of one batch are few; nothing is VACUUM FULLed).
 *
 * Messages are found through the deliveries' primary key, which is time-ordered (`dlv_<ms hex>…`):
 * the pass reads the oldest deliveries from a cursor and stops at the first batch with nothing
 * created before the cutoff. A candidate's deliveries are locked (`FOR UPDATE`) before the check, so
 * a redelivery committing meanwhile either lands first (the message is kept) or waits and then finds
 * nothing to update. Attempts are walked by their identity column the same way.
 *
 * Messages that matched no endpoint have no delivery to be found by: a third pass walks the messages
 * older than the cutoff through the `(created_at, id)` index the schema adds for it, so it reads the
 * old rows (the ones it deletes, and those still held by an unfinished delivery), not the whole table
 * on every run as a scan by block ranges did.
 */
import type { Pool, PoolClient } from '../drivers/pg.js';
import {
  type OutboxTables,
  type PruneOutboxOptions,
  type PruneOutboxResult,
  pause,
  pruneLimits,
  pruneTables,
} from './outbox-prune.js';

const DEFAULT_TABLES: OutboxTables = {
  messages: '"public"."webhook_messages"',
  deliveries: '"public"."webhook_deliveries"',
  attempts: '"public"."webhook_attempts"',
};

export async function prunePostgresOutbox(
  pool: Pool,
  options: PruneOutboxOptions,
): Promise<PruneOutboxResult> {
  const T = pruneTables(options.tables, DEFAULT_TABLES, 'prunePostgresOutbox');
  const limits = pruneLimits(options, 'prunePostgresOutbox');
  const before = new Date(limits.messagesBefore);
  const attemptsBefore = new Date(limits.attemptsBefore);
  const counts = { messages: 0, deliveries: 0, attempts: 0, batches: 0, vacuumedPages: 0 };

  const inTransaction = async <R>(fn: (c: PoolClient) => Promise<R>): Promise<R> => {
    const client = await pool.connect();
    let failed: Error | undefined;
    try {
      await client.query('BEGIN');
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (error) {
      failed = error instanceof Error ? error : new Error(String(error));
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release(failed);
    }
  };

  /** Deletes the given messages that are still finished before the cutoff, locking first. */
  const dropMessages = async (c: PoolClient, candidates: string[]): Promise<void> => {
    if (candidates.length === 0) return;
    const messages = await c.query<{ id: string }>(
      `SELECT id FROM ${T.messages} WHERE id = ANY($1) AND created_at < $2 ORDER BY id FOR UPDATE`,
      [candidates, before],
    );
    if (messages.rows.length === 0) return;
    const ids = messages.rows.map((r) => r.id);
    // Read after the lock: a concurrent redelivery is either visible here or waits for our commit.
    const deliveries = await c.query<{ id: string; message_id: string; held: boolean }>(
      `SELECT id, message_id, NOT (status IN ('succeeded', 'dead') AND finished_at < $2) AS held
       FROM ${T.deliveries} WHERE message_id = ANY($1) ORDER BY id FOR UPDATE`,
      [ids, before],
    );
    const keep = new Set(deliveries.rows.filter((r) => r.held).map((r) => r.message_id));
    const doomed = ids.filter((id) => !keep.has(id));
    if (doomed.length === 0) return;
    const doomedDeliveries = deliveries.rows.filter((r) => !keep.has(r.message_id)).map((r) => r.id);
    if (doomedDeliveries.length > 0) {
      counts.attempts +=
        (await c.query(`DELETE FROM ${T.attempts} WHERE delivery_id = ANY($1)`, [doomedDeliveries]))
          .rowCount ?? 0;
      counts.deliveries +=
        (await c.query(`DELETE FROM ${T.deliveries} WHERE id = ANY($1)`, [doomedDeliveries])).rowCount ?? 0;
    }
    counts.messages +=
      (await c.query(`DELETE FROM ${T.messages} WHERE id = ANY($1)`, [doomed])).rowCount ?? 0;
  };

  const messageBatch = async (cursor: string): Promise<string | undefined> => {
    const rows = (
      await pool.query<{ id: string; message_id: string; old: boolean }>(
        `SELECT id, message_id, created_at < $2 AS old FROM ${T.deliveries}
         WHERE id > $1 ORDER BY id LIMIT $3`,
        [cursor, before, limits.batch],
      )
    ).rows;
    const candidates = [...new Set(rows.filter((r) => r.old).map((r) => r.message_id))];
    await inTransaction((c) => dropMessages(c, candidates));
    const last = rows.at(-1);
    return last !== undefined && candidates.length > 0 && rows.length === limits.batch ? last.id : undefined;
  };

  const attemptBatch = async (cursor: string): Promise<string | undefined> => {
    const rows = (
      await pool.query<{ id: string; old: boolean; doomed: boolean }>(
        `SELECT a.id, a.started_at < $2 AS old,
           (a.started_at < $2 AND (d.id IS NULL OR (d.status IN ('succeeded', 'dead') AND d.finished_at < $2))) AS doomed
         FROM ${T.attempts} a LEFT JOIN ${T.deliveries} d ON d.id = a.delivery_id
         WHERE a.id > $1 ORDER BY a.id LIMIT $3`,
        [cursor, attemptsBefore, limits.batch],
      )
    ).rows;
    const doomed = rows.filter((r) => r.doomed).map((r) => r.id);
    if (doomed.length > 0) {
      counts.attempts +=
        (await pool.query(`DELETE FROM ${T.attempts} WHERE id = ANY($1::bigint[])`, [doomed])).rowCount ?? 0;
    }
    const last = rows.at(-1);
    return last !== undefined && rows.some((r) => r.old) && rows.length === limits.batch
      ? last.id
      : undefined;
  };

  /**
   * Messages older than the cutoff, oldest first from a `(created_at, id)` cursor; those without a
   * delivery go. The cursor travels as text so it keeps the column's microseconds.
   */
  const orphanBatch = async (cursor: string): Promise<string | undefined> => {
    const [at, id] = cursor === '' ? [null, ''] : (JSON.parse(cursor) as [string, string]);
    const { rows } = await pool.query<{ id: string; at: string; orphan: boolean }>(
      `SELECT m.id, m.created_at::text AS at,
         NOT EXISTS (SELECT 1 FROM ${T.deliveries} d WHERE d.message_id = m.id) AS orphan
       FROM ${T.messages} m
       WHERE m.created_at < $3 AND ($1::timestamptz IS NULL OR (m.created_at, m.id) > ($1::timestamptz, $2))
       ORDER BY m.created_at, m.id LIMIT $4`,
      [at, id, before, limits.batch],
    );
    const orphans = rows.filter((r) => r.orphan).map((r) => r.id);
    if (orphans.length > 0) await inTransaction((c) => dropMessages(c, orphans));
    const last = rows.at(-1);
    return last !== undefined && rows.length === limits.batch
      ? JSON.stringify([last.at, last.id])
      : undefined;
  };

  const pass = async (
    first: string,
    batch: (cursor: string) => Promise<string | undefined>,
  ): Promise<boolean> => {
    let cursor: string | undefined = first;
    while (cursor !== undefined) {
      if (options.signal?.aborted) return false;
      cursor = await batch(cursor);
      counts.batches++;
      if (cursor !== undefined) await pause(options.pauseMs);
    }
    return true;
  };

  (await pass('', messageBatch)) && (await pass('0', attemptBatch)) && (await pass('', orphanBatch));
  return counts;
}
