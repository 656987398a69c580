import fc from 'fast-check';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { prunePostgresOutbox } from '../../runtime/deliver/postgres-prune.js';
import { pgSchema } from '../sender/helpers.js';
import { missingEnv } from '../support/requires.js';
import { DAY, ENDPOINTS, expectedAfterPrune, type History, historyArb, T0, unfinished } from './history.js';

const skip = missingEnv('DATABASE_URL', 'the PostgreSQL outbox pruning tests');

describe.skipIf(skip)('prunePostgresOutbox', () => {
  let db: Awaited<ReturnType<typeof pgSchema>>;
  let T: { messages: string; deliveries: string; attempts: string };
  let outbox: ReturnType<typeof postgresOutbox>;
  beforeAll(async () => {
    db = await pgSchema('prune');
    outbox = postgresOutbox(db.pool, { schema: db.schema });
    for (const id of ENDPOINTS) {
      await outbox.createEndpoint(
        { id, url: `https://example.com/${id}`, events: ['*'], secret: 'whsec_dGVzdA==' },
        T0,
      );
    }
    const t = (name: string) => `"${db.schema}"."webhook_${name}"`;
    T = { messages: t('messages'), deliveries: t('deliveries'), attempts: t('attempts') };
  });
  afterAll(async () => db?.drop());

  const insertHistory = async (pool: pg.Pool, h: History) => {
    const messages = h.messages;
    const deliveries = messages.flatMap((m) => m.deliveries.map((d) => ({ m, d })));
    const attempts = deliveries.flatMap(({ m, d }) => d.attempts.map((a, i) => ({ m, d, a, i })));
    const ts = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    await pool.query(
      `INSERT INTO ${T.messages} (id, event_type, body, created_at)
       SELECT id, 'pet.created', '{}', c FROM unnest($1::text[], $2::timestamptz[]) AS u(id, c)`,
      [messages.map((m) => m.id), messages.map((m) => ts(m.createdAt))],
    );
    await pool.query(
      `INSERT INTO ${T.deliveries} (id, message_id, endpoint_id, status, attempts, next_attempt_at, lease_owner,
         lease_until, created_at, updated_at, finished_at)
       SELECT id, mid, eid, st, 0, c, CASE WHEN st = 'delivering' THEN 'worker' END,
         CASE WHEN st = 'delivering' THEN $7::timestamptz END, c, c, f
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[])
         AS u(id, mid, eid, st, c, f)`,
      [
        deliveries.map(({ d }) => d.id),
        deliveries.map(({ m }) => m.id),
        deliveries.map(({ d }) => d.endpointId),
        deliveries.map(({ d }) => d.status),
        deliveries.map(({ m }) => ts(m.createdAt)),
        deliveries.map(({ d }) => ts(d.finishedAt)),
        ts(h.now + 1000),
      ],
    );
    await pool.query(
      `INSERT INTO ${T.attempts} (id, delivery_id, message_id, endpoint_id, attempt, started_at, duration_ms, outcome)
       OVERRIDING SYSTEM VALUE
       SELECT id, did, mid, eid, n, s, 1, 'failed'
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::int[], $6::timestamptz[]) AS u(id, did, mid, eid, n, s)`,
      [
        attempts.map(({ a }) => a.id),
        attempts.map(({ d }) => d.id),
        attempts.map(({ m }) => m.id),
        attempts.map(({ d }) => d.endpointId),
        attempts.map(({ i }) => i + 1),
        attempts.map(({ a }) => ts(a.startedAt)),
      ],
    );
  };

  const remaining = async (pool: pg.Pool) => {
    const ids = async (table: string) =>
      (await pool.query<{ id: string }>(`SELECT id::text FROM ${table}`)).rows.map((r) => r.id);
    return {
      messages: (await ids(T.messages)).sort(),
      deliveries: (await ids(T.deliveries)).sort(),
      attempts: (await ids(T.attempts)).map(Number).sort((a, b) => a - b),
    };
  };

  it('deletes exactly the finished history past its window, never a pending or leased delivery', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb, async (h) => {
        await db.pool.query(`TRUNCATE ${T.attempts}, ${T.deliveries}, ${T.messages}`);
        await insertHistory(db.pool, h);
        const before = await remaining(db.pool);
        // The outbox's own prune(): its schema's tables, not the default ones.
        const result = await outbox.prune(h);
        const after = await remaining(db.pool);
        expect(after).toEqual(expectedAfterPrune(h));
        for (const id of unfinished(h)) expect(after.deliveries).toContain(id);
        expect(result.messages).toBe(before.messages.length - after.messages.length);
        expect(result.deliveries).toBe(before.deliveries.length - after.deliveries.length);
        expect(result.attempts).toBe(before.attempts.length - after.attempts.length);
      }),
      { numRuns: 100 },
    );
  }, 120_000);

  it('keeps a message whose delivery is redelivered while the prune holds it', async () => {
    await db.pool.query(`TRUNCATE ${T.attempts}, ${T.deliveries}, ${T.messages}`);
    const h: History = {
      messages: [
        {
          id: 'm1',
          createdAt: T0,
          deliveries: [{ id: 'dlv_1', endpointId: 'ep_a', status: 'dead', finishedAt: T0, attempts: [] }],
        },
      ],
      now: T0 + 10 * DAY,
      keepAttemptsMs: DAY,
      keepMessagesMs: DAY,
      batchSize: 10,
    };
    await insertHistory(db.pool, h);
    // A redelivery that commits before the prune looks: the delivery is pending again.
    const other = await db.pool.connect();
    await other.query('BEGIN');
    await other.query(`UPDATE ${T.deliveries} SET status = 'pending', finished_at = NULL WHERE id = 'dlv_1'`);
    const pruning = prunePostgresOutbox(db.pool, { ...h, tables: T });
    await new Promise((r) => setTimeout(r, 200));
    await other.query('COMMIT');
    other.release();
    const result = await pruning;
    expect(result.messages).toBe(0);
    expect((await remaining(db.pool)).deliveries).toEqual(['dlv_1']);
  });
});
