/**
 * A PostgreSQL outbox made before ordering keys existed opens with them: the columns, the sequence
 * and the index are added in place, the queued deliveries are still claimed, and keyed sends made
 * after the migration are delivered in send order. One made before the messages' `(created_at, id)`
 * index gains it, and retention then finds messages that matched no endpoint through it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_OBJECTS } from '../../runtime/deliver/outbox/postgres/schema.js';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { prunePostgresOutbox } from '../../runtime/deliver/postgres-prune.js';
import { pgSchema, warnNoDatabase } from './helpers.js';

const skip = warnNoDatabase('the PostgreSQL outbox migration test');

describe('PostgreSQL outbox migration', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const fn of cleanups) await fn();
  });

  it.skipIf(skip)('adds ordering keys to an outbox made without them', async () => {
    const db = await pgSchema('migrate');
    cleanups.push(() => db.drop());
    const s = `"${db.schema}"`;
    const old = postgresOutbox(db.pool, { schema: db.schema });
    const ep = await old.createEndpoint(
      { url: 'https://example.com/h', events: ['*'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      0,
    );
    await old.enqueue({ id: 'msg_old', eventType: 'e', body: '{}', headers: {}, createdAt: 0 });
    // The schema as it was: no ordering columns, sequence or index.
    await db.pool.query(`DROP INDEX ${s}."webhook_deliveries_ordering";
      ALTER TABLE ${s}.webhook_deliveries DROP COLUMN ordering_key, DROP COLUMN ordering_seq;
      DROP SEQUENCE ${s}.webhook_deliveries_ordering_seq`);
    const columns = async () =>
      (
        await db.pool.query<{ column_name: string }>(
          `SELECT column_name FROM information_schema.columns
           WHERE table_schema = $1 AND table_name = 'webhook_deliveries' AND column_name LIKE 'ordering%'
           ORDER BY column_name`,
          [db.schema],
        )
      ).rows.map((r) => r.column_name);
    expect(await columns()).toEqual([]);

    const outbox = postgresOutbox(db.pool, { schema: db.schema });
    await outbox.init();
    expect(await columns()).toEqual(['ordering_key', 'ordering_seq']);
    const index = await db.pool.query(
      `SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = 'webhook_deliveries_ordering'`,
      [db.schema],
    );
    expect(index.rowCount).toBe(1);

    // What was queued before is still delivered; keyed sends after the migration go in order.
    for (const i of [1, 2]) {
      await outbox.enqueue(
        { id: `msg_k${i}`, eventType: 'e', body: '{}', headers: {}, createdAt: i },
        { orderingKey: 'customer-1' },
      );
    }
    const first = await outbox.claim({ owner: 'w', now: 1000, leaseMs: 30_000, limit: 10 });
    expect(first.map((d) => d.messageId).sort()).toEqual(['msg_k1', 'msg_old']);
    expect(first.every((d) => d.endpoint.id === ep.id)).toBe(true);
  });

  it.skipIf(skip)('adds the messages index retention reads to an outbox made without it', async () => {
    const db = await pgSchema('migrate_idx');
    cleanups.push(() => db.drop());
    const s = `"${db.schema}"`;
    const DAY = 86_400_000;
    const old = postgresOutbox(db.pool, { schema: db.schema });
    await old.init();
    await db.pool.query(`DROP INDEX ${s}."webhook_messages_created"`);
    const hasIndex = async () =>
      (
        await db.pool.query(
          `SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = 'webhook_messages_created'`,
          [db.schema],
        )
      ).rowCount;
    expect(await hasIndex()).toBe(0);
    // Messages that matched no endpoint, made while the index was missing: two old, one recent.
    for (const [id, at] of [
      ['msg_a', 1000],
      ['msg_b', 2000],
      ['msg_new', 40 * DAY],
    ] as const) {
      await old.enqueue({ id, eventType: 'e', body: '{}', headers: {}, createdAt: at });
    }

    const outbox = postgresOutbox(db.pool, { schema: db.schema });
    await outbox.init();
    expect(await hasIndex()).toBe(1);
    const tables = {
      messages: `${s}."webhook_messages"`,
      deliveries: `${s}."webhook_deliveries"`,
      attempts: `${s}."webhook_attempts"`,
    };
    // One message per batch, so the cursor has to walk from one to the next.
    const result = await prunePostgresOutbox(db.pool, {
      tables,
      keepAttemptsMs: DAY,
      keepMessagesMs: 7 * DAY,
      now: 41 * DAY,
      batchSize: 1,
    });
    expect(result.messages).toBe(2);
    const left = await db.pool.query<{ id: string }>(`SELECT id FROM ${s}.webhook_messages ORDER BY id`);
    expect(left.rows.map((r) => r.id)).toEqual(['msg_new']);
    // Three rows are a sequential scan's; with that ruled out, the pass's order comes from the index.
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN; SET LOCAL enable_seqscan = off');
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT id FROM ${s}.webhook_messages WHERE created_at < now() ORDER BY created_at, id LIMIT 100`,
      );
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('webhook_messages_created');
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });
});

describe('PostgreSQL outbox open on a complete schema', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const fn of cleanups) await fn();
  });

  it.skipIf(skip)('lists every object its DDL makes, so the no-DDL path cannot skip a new one', async () => {
    const db = await pgSchema('objects');
    cleanups.push(() => db.drop());
    await postgresOutbox(db.pool, { schema: db.schema }).init();
    const { rows } = await db.pool.query<{ relname: string }>(
      `SELECT k.relname FROM pg_class k JOIN pg_namespace n ON n.oid = k.relnamespace
       WHERE n.nspname = $1 AND k.relkind IN ('r', 'i', 'S')
         AND NOT EXISTS (SELECT 1 FROM pg_constraint x WHERE x.conindid = k.oid)
       ORDER BY k.relname`,
      [db.schema],
    );
    const made = rows.map((r) => r.relname.replace(/^webhook_/, '')).filter((n) => !n.endsWith('_id_seq'));
    expect(made).toEqual([...SCHEMA_OBJECTS].sort());
  });

  it.skipIf(skip)(
    'takes no table lock: a worker opening the outbox never waits for (or deadlocks with) a send',
    async () => {
      const db = await pgSchema('nolock');
      cleanups.push(() => db.drop());
      const s = `"${db.schema}"`;
      await postgresOutbox(db.pool, { schema: db.schema }).init();
      // A transaction holding what a send holds mid-statement, and more: no other session may write.
      const holder = await db.pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query(`LOCK TABLE ${s}.webhook_messages, ${s}.webhook_deliveries IN EXCLUSIVE MODE`);
        const opened = postgresOutbox(db.pool, { schema: db.schema }).init();
        const result = await Promise.race([
          opened.then(() => 'opened'),
          new Promise((resolve) => setTimeout(() => resolve('blocked'), 3000)),
        ]);
        expect(result).toBe('opened');
      } finally {
        await holder.query('ROLLBACK');
        holder.release();
      }
    },
  );
});
