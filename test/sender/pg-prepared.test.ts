/**
 * The PostgreSQL outbox prepares its claim and completion statements on the connection that runs them
 * (named by the hash of their text, so two outboxes on other tables share a pool), and prepares
 * nothing with `preparedStatements: false` (a proxy that does not keep a session's statements).
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { warnNoDatabase } from './helpers.js';

const skip = warnNoDatabase('the PostgreSQL prepared statement test');
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('PostgreSQL outbox statements', () => {
  // One connection, so the statements it lists are the ones the outbox prepared on it.
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
  const schemas: string[] = [];
  afterAll(async () => {
    for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  /** Sends one message, claims and completes it; returns the names now prepared on the connection. */
  const cycle = async (tag: string, preparedStatements?: boolean): Promise<string[]> => {
    const schema = `gw_prepared_${tag}_${process.pid}`;
    schemas.push(schema);
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.query('DEALLOCATE ALL');
    const outbox = postgresOutbox(pool, {
      schema,
      ...(preparedStatements !== undefined ? { preparedStatements } : {}),
    });
    const endpoint = await outbox.createEndpoint(
      { url: 'http://127.0.0.1:9/h', events: ['*'], secret: SECRET },
      Date.now(),
    );
    await outbox.enqueue(
      { id: `msg_${tag}`, eventType: 'e', body: '{}', headers: {}, createdAt: Date.now() },
      { endpointIds: [endpoint.id] },
    );
    const [delivery] = await outbox.claim({ owner: 'w', now: Date.now() + 1, leaseMs: 30_000, limit: 8 });
    if (!delivery) throw new Error('nothing claimed');
    const now = Date.now();
    const result = await outbox.complete({
      delivery,
      now,
      attempt: { startedAt: now, durationMs: 1, statusCode: 200, outcome: 'succeeded' },
      resolution: { kind: 'succeeded' },
    });
    expect(result.applied).toBe(true);
    expect((await outbox.getDelivery(delivery.id))?.status).toBe('succeeded');
    const { rows } = await pool.query('SELECT name FROM pg_prepared_statements ORDER BY name');
    return rows.map((r) => r.name as string);
  };

  it.skipIf(skip)('prepares the claim and the completion by default, nothing when told not to', async () => {
    const names = await cycle('on');
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^gw_[0-9a-f]{24}$/);
    expect(await cycle('off', false)).toEqual([]);
  });
});
