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
 * table by physical block ranges (TID range scans) for those, a bounded number of blocks per batch.
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

/** Heap blocks read per batch of the no-delivery pass. */
const BLOCKS_PER_BATCH = 64;

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

  /** Messages without deliveries, a block range at a time (the table's size bounds the pass). */
  const orphanBatch = async (cursor: string): Promise<string | undefined> => {
    const block = Number(cursor);
    const { rows: size } = await pool.query<{ blocks: string }>(
      `SELECT pg_relation_size($1::regclass) / current_setting('block_size')::bigint AS blocks`,
      [T.messages],
    );
    if (block >= Number(size[0]?.blocks ?? 0)) return undefined;
    const upto = block + BLOCKS_PER_BATCH;
    const { rows } = await pool.query<{ id: string }>(
      `SELECT m.id FROM ${T.messages} m
       WHERE m.ctid >= format('(%s,0)', $1::bigint)::tid AND m.ctid < format('(%s,0)', $2::bigint)::tid
         AND m.created_at < $3
         AND NOT EXISTS (SELECT 1 FROM ${T.deliveries} d WHERE d.message_id = m.id)`,
      [block, upto, before],
    );
    await inTransaction((c) =>
      dropMessages(
        c,
        rows.map((r) => r.id),
      ),
    );
    return String(upto);
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

  (await pass('', messageBatch)) && (await pass('0', attemptBatch)) && (await pass('0', orphanBatch));
  return counts;
}
