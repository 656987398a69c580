import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { missingEnv } from '../../test/support/requires.js';
import { storeKey } from './key.js';
import { redisStore } from './redis.js';
import { RETRY_WINDOWS } from './retry-windows.js';
import { runStoreSuite } from './store-suite.js';

const url = process.env['REDIS_URL'];
const noRedis = missingEnv('REDIS_URL', 'the Redis store tests');

const prefix = `gw-test:${randomUUID()}:`;
const clients: Redis[] = [];
const client = (): Redis => {
  const c = new Redis(url ?? '', { lazyConnect: false, maxRetriesPerRequest: 1 });
  clients.push(c);
  return c;
};

afterAll(async () => {
  if (noRedis) return;
  const c = clients[0] ?? client();
  const keys = await c.keys(`${prefix}*`);
  if (keys.length > 0) await c.del(...keys);
  await Promise.all(clients.map((c) => c.quit()));
});

runStoreSuite('redis', {
  skip: noRedis,
  expiresItself: true,
  create: () => redisStore(client(), { prefix: `${prefix}suite:` }),
});

describe.skipIf(noRedis)('redisStore', () => {
  it('writes done keys with a Redis TTL and leases with the lease length', async () => {
    const c = client();
    const store = redisStore(c, { prefix: `${prefix}ttl:` });
    expect(store.ttlMs).toBeUndefined();
    await store.claim('k', { leaseMs: 30_000, now: Date.now(), token: 't' });
    const lease = await c.pttl(`${prefix}ttl:k`);
    expect(lease).toBeGreaterThan(0);
    expect(lease).toBeLessThanOrEqual(30_000);
    await store.complete('k', { ttlMs: RETRY_WINDOWS.stripe, now: Date.now() });
    const ttl = await c.pttl(`${prefix}ttl:k`);
    expect(ttl).toBeGreaterThan(RETRY_WINDOWS.stripe - 60_000);
    expect(ttl).toBeLessThanOrEqual(RETRY_WINDOWS.stripe);
  });

  it('keys a long id by its digest, like the other stores', async () => {
    const c = client();
    const store = redisStore(c, { prefix: `${prefix}long:` });
    const id = `evt_${'z'.repeat(3000)}`;
    await store.claim(id, { leaseMs: 30_000, now: Date.now(), token: 't' });
    expect(await c.keys(`${prefix}long:*`)).toEqual([`${prefix}long:${storeKey(id)}`]);
    expect(storeKey(id)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('uses a per-provider preset as the store default', () => {
    expect(redisStore(client(), { prefix, ttlMs: RETRY_WINDOWS.shopify }).ttlMs).toBe(RETRY_WINDOWS.shopify);
    expect(RETRY_WINDOWS.stripe).toBeGreaterThan(3 * 24 * 3600 * 1000);
  });

  it('lets a lease expire in real time (PX) so a crashed holder does not block retries', async () => {
    const store = redisStore(client(), { prefix: `${prefix}px:` });
    expect(await store.claim('k', { leaseMs: 50, now: Date.now(), token: 'a' })).toBe('claimed');
    // Bounded wait for Redis to expire the key (not a timing assertion: we poll until it happens).
    for (let i = 0; i < 100; i++) {
      const r = await store.claim('k', { leaseMs: 50, now: Date.now(), token: `b${i}` });
      if (r === 'claimed') return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('lease never expired');
  });
});
