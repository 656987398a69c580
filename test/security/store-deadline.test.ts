/**
 * Fault: a network partition between the receiver and its store. The store does not fail, it stops
 * answering: the receiver never answered, so the provider timed out (Discord after 3 s) and retried
 * into the same hang.
 *
 * Must hold, through a TCP proxy that blackholes real PostgreSQL and Redis: every store call has a
 * deadline (`storeTimeoutMs`, default 1.5 s), and a delivery that hits the partition is answered 503
 * store_error with Retry-After within it, in plain, transactional and ack-fast mode. What the store
 * does late is harmless: once the partition heals, the sender's retry is processed exactly once (a
 * claim that landed after its deadline was given back, not left to block the retry for a lease).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ackFastQueue } from '../../runtime/receive/ack-fast-mode.js';
import { createReceiver } from '../../runtime/receive/receiver-web.js';
import { DEFAULT_STORE_TIMEOUT_MS } from '../../runtime/receive/store-deadline.js';
import type { ReceiveResult } from '../../runtime/receive/types.js';
import { postgresStore } from '../../runtime/stores/postgres.js';
import { redisStore } from '../../runtime/stores/redis.js';
import type { IdempotencyStore } from '../../runtime/stores/types.js';
import { adopted, delivery, petstore, SECRET } from '../receiver/fixtures.js';
import { DATABASE_URL, eventually, missing, pgSchema, REDIS_URL, within } from './services.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

const DEADLINE_MS = 500;

async function proxyTo(port: number): Promise<TcpProxy> {
  const proxy = await startTcpProxy({ port });
  cleanups.push(() => proxy.close());
  return proxy;
}

type Mode = 'plain' | 'transactional' | 'ack-fast';

async function receiverOn(store: IdempotencyStore<unknown>, mode: Mode, effects: string[]) {
  const receiver = createReceiver(petstore, {
    secret: SECRET,
    store: store as IdempotencyStore<pg.PoolClient>,
    storeTimeoutMs: DEADLINE_MS,
    transactional: mode === 'transactional',
    ...(mode === 'ack-fast' ? { ackFast: ackFastQueue() } : {}),
    handlers: { 'pet.adopted': (event) => void effects.push(event.id) },
  } as Parameters<typeof createReceiver>[1]);
  cleanups.push(() => receiver.stop());
  return receiver;
}

/** Partition, deliver, expect a prompt 503; heal, redeliver until settled, expect one effect. */
async function partitionThenHeal(
  proxy: TcpProxy,
  receiver: ReturnType<typeof createReceiver>,
  mode: Mode,
  effects: string[],
) {
  // Warm up through the proxy (connections open, tables migrated), then partition.
  const warm = delivery('pet.adopted', adopted('warm'));
  await eventually(async () => (await receiver.handle(warm)).status === 200, 'the warm-up');
  proxy.blackhole();
  const d = delivery('pet.adopted', adopted('rex'));
  const id = JSON.parse(d.body).id as string;
  const cut: ReceiveResult = await within(receiver.handle(d), 5000, 'a delivery during the partition');
  expect(cut.status).toBe(503);
  expect(JSON.parse(cut.body)).toMatchObject({ error: { code: 'store_error' } });
  expect(cut.headers?.['retry-after']).toMatch(/^\d+$/);
  expect(cut.error?.details).toMatchObject({ timeoutMs: DEADLINE_MS });

  proxy.restore();
  let settled: ReceiveResult | undefined;
  await eventually(async () => {
    settled = await within(receiver.handle(d), 5000, 'a retry after the partition');
    return settled.status === 200;
  }, 'the retry to be processed');
  if (mode === 'ack-fast') await receiver.drain();
  expect(effects.filter((e) => e === id)).toHaveLength(1);
  expect(JSON.parse((await receiver.handle(d)).body)).toMatchObject({
    status: mode === 'ack-fast' ? 'queued' : 'already processed',
  });
  if (mode === 'ack-fast') {
    await receiver.drain();
    expect(effects.filter((e) => e === id)).toHaveLength(1);
  }
}

describe('the store deadline', () => {
  it('defaults to well inside the strictest provider timeout (Discord, 3 s)', () => {
    expect(DEFAULT_STORE_TIMEOUT_MS).toBeLessThanOrEqual(1500);
  });
});

describe.skipIf(missing('DATABASE_URL'))('PostgreSQL partitioned', () => {
  for (const mode of ['plain', 'transactional', 'ack-fast'] as const) {
    it(`${mode}: 503 + Retry-After within the deadline, then processed once`, async () => {
      const proxy = await proxyTo(5432);
      const db = pgSchema(`deadline_${mode.replace('-', '_')}`);
      cleanups.push(() => db.drop());
      const pool = new pg.Pool({ connectionString: proxy.via(DATABASE_URL ?? ''), max: 4 });
      cleanups.push(() => pool.end());
      const effects: string[] = [];
      const receiver = await receiverOn(postgresStore(pool, { schema: db.schema }), mode, effects);
      await partitionThenHeal(proxy, receiver, mode, effects);
    });
  }
});

describe.skipIf(missing('REDIS_URL'))('Redis partitioned', () => {
  it('plain: 503 + Retry-After within the deadline, then processed once', async () => {
    const proxy = await proxyTo(Number(new URL(REDIS_URL ?? 'redis://x:6379').port || 6379));
    const client = new Redis(proxy.via(REDIS_URL ?? ''));
    cleanups.push(() => client.disconnect());
    const effects: string[] = [];
    const receiver = await receiverOn(
      redisStore(client, { prefix: `gw-sec:${randomUUID()}:` }),
      'plain',
      effects,
    );
    await partitionThenHeal(proxy, receiver, 'plain', effects);
  });
});
