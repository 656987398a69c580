/**
 * The PostgreSQL claim's plan does not depend on fresh statistics: with the tables analysed while
 * (nearly) empty and then filled (autovacuum off, so the statistics stay stale), the claim still reads
 * deliveries through the partial pending / leased indexes, never through the per-endpoint index (all
 * of an endpoint's rows, then a sort) or a sequential scan of the deliveries, and never looks an
 * endpoint up once per due row (the stale plan reads every due row: 3,000 lookups per claim here).
 */
import type pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { pgSchema, warnNoDatabase } from './helpers.js';

const skip = warnNoDatabase('the PostgreSQL claim plan test');

describe('PostgreSQL claim plan', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const fn of cleanups) await fn();
  });

  it.skipIf(skip)('uses the partial indexes under stale statistics', async () => {
    const db = await pgSchema('claim_plan');
    cleanups.push(() => db.drop());
    const s = `"${db.schema}"`;
    const outbox = postgresOutbox(db.pool, { schema: db.schema });
    await outbox.init();
    const endpoint = await outbox.createEndpoint(
      { url: 'http://127.0.0.1:9/h', events: ['*'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      0,
    );
    await db.pool.query(`ALTER TABLE ${s}.webhook_deliveries SET (autovacuum_enabled = false)`);
    await db.pool.query(
      `ANALYZE ${s}.webhook_deliveries; ANALYZE ${s}.webhook_messages; ANALYZE ${s}.webhook_endpoints`,
    );
    await db.pool.query(
      `INSERT INTO ${s}.webhook_messages SELECT 'm' || g, 'e', '{}', '{}', now() FROM generate_series(1, 30000) g`,
    );
    await db.pool.query(
      `INSERT INTO ${s}.webhook_deliveries (id, message_id, endpoint_id, status, next_attempt_at, created_at, updated_at)
       SELECT 'd' || g, 'm' || g, $1, CASE WHEN g % 10 = 0 THEN 'pending' ELSE 'succeeded' END, now(), now(), now()
       FROM generate_series(1, 30000) g`,
      [endpoint.id],
    );
    // Every scan of the claim's statements, explained and run (then rolled back) with the values the
    // claim binds: planned for those values, and generic (the plan a prepared statement may keep
    // after its first runs, made without the values).
    const plans: string[] = [];
    const pool = db.pool as pg.Pool & { query: (...args: unknown[]) => Promise<unknown> };
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<pg.QueryResult>;
    pool.query = async (config: unknown, params?: unknown) => {
      const { text, values } =
        typeof config === 'string'
          ? { text: config, values: params as unknown[] }
          : (config as { text: string; values: unknown[] });
      if (text.includes('SKIP LOCKED')) {
        // Prepared as the outbox's statement is, then executed under each plan cache mode.
        const args = values.map(literal).join(', ');
        for (const mode of ['force_custom_plan', 'force_generic_plan']) {
          const client = await db.pool.connect();
          try {
            await client.query('BEGIN');
            await client.query(`SET LOCAL plan_cache_mode = ${mode}`);
            await client.query(`PREPARE claim_plan AS ${text}`);
            const plan = await client.query(`EXPLAIN (ANALYZE, COSTS OFF) EXECUTE claim_plan (${args})`);
            plans.push(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
          } finally {
            await client.query('ROLLBACK');
            await client.query('DEALLOCATE claim_plan');
            client.release();
          }
        }
      }
      return query(config, params);
    };
    const claimed = await outbox.claim({ owner: 'w', now: Date.now() + 1000, leaseMs: 30_000, limit: 32 });
    pool.query = query as typeof pool.query;
    expect(claimed).toHaveLength(32);
    expect(plans.length).toBeGreaterThan(0);
    for (const plan of plans) {
      expect(plan).toContain('webhook_deliveries_pending');
      expect(plan).not.toContain('webhook_deliveries_endpoint');
      expect(plan).not.toMatch(/Seq Scan on webhook_deliveries/);
      // Endpoint reads run once per claim, or once per claimed row at most: not per due row.
      const endpointLoops = [...plan.matchAll(/on webhook_endpoints \w+ \(actual [^)]* loops=(\d+)\)/g)];
      expect(endpointLoops.length).toBeGreaterThan(0);
      for (const [, loops] of endpointLoops) expect(Number(loops)).toBeLessThanOrEqual(32);
    }
  });
});

/** A bound value as SQL text (EXECUTE takes no parameters of its own). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (value instanceof Date) return `'${value.toISOString()}'`;
  if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(', ')}]::text[]`;
  return `'${String(value).replaceAll("'", "''")}'`;
}
