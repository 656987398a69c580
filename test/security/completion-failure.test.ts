/**
 * Fault: the store fails to write the "done" record after the handler ran (complete() rejects or
 * hangs). The receiver answered 200 but left only the claim, whose lease then expired: a duplicate
 * after the lease ran the handler a second time (2 effects, on Redis and PostgreSQL alike); and on
 * Redis the 200 came only after 11.4 s of driver retries, past GitHub's and Slack's timeouts.
 *
 * Must hold, on real Redis and PostgreSQL, with the Node receiver: the 200 comes at once (a hanging
 * completion is given up at the store deadline); the claim is kept alive and the completion retried
 * in the background, so a duplicate after the lease is answered 409 in progress, never run; once the
 * store recovers the duplicate is "already processed" — one effect in all. A completion that keeps
 * failing is reported through onError as `completion_failed`, once. The Web receiver (edge runtimes
 * do not reliably run an answered request's timers) retries before answering instead: a complete
 * that fails a few times still lands before the 200, a hanging one is given up within about two
 * store deadlines and reported as `completion_failed`.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { WebhookError } from '../../runtime/errors.js';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import { createReceiver as createWebReceiver } from '../../runtime/receive/receiver-web.js';
import { postgresStore } from '../../runtime/stores/postgres.js';
import { redisStore } from '../../runtime/stores/redis.js';
import type { IdempotencyStore } from '../../runtime/stores/types.js';
import { adopted, delivery, petstore, SECRET } from '../receiver/fixtures.js';
import { DATABASE_URL, eventually, missing, pgSchema, REDIS_URL, sleep, within } from './services.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

// Short, so the test sees a lease pass; renewals (every LEASE_MS / 3) keep it with room to spare.
const LEASE_MS = 600;

/** The store with a `complete` the test breaks ('fail' rejects, 'hang' never answers) and heals. */
function breakable(store: IdempotencyStore<unknown>) {
  let mode: 'ok' | 'fail' | 'hang' = 'ok';
  let calls = 0;
  // Failures left before `mode` 'fail' heals by itself (Infinity: until set('ok')).
  let failures = Number.POSITIVE_INFINITY;
  const wrapped: IdempotencyStore<unknown> = {
    ...store,
    name: store.name,
    claim: (key, options) => store.claim(key, options),
    extend: (key, options) =>
      (store.extend as NonNullable<IdempotencyStore<unknown>['extend']>)(key, options),
    release: (key, options) => store.release(key, options),
    complete: (key, options) => {
      calls++;
      if (mode === 'fail' && failures-- > 0) {
        return Promise.reject(new Error('connection reset while writing done'));
      }
      if (mode === 'hang') return new Promise<void>(() => {});
      return store.complete(key, options);
    },
  };
  return {
    store: wrapped,
    set: (m: typeof mode, times = Number.POSITIVE_INFINITY) => {
      mode = m;
      failures = times;
    },
    calls: () => calls,
  };
}

interface Backend {
  readonly name: string;
  readonly skip: boolean;
  create(): Promise<IdempotencyStore<unknown>>;
}

const backends: Backend[] = [
  {
    name: 'redis',
    skip: missing('REDIS_URL'),
    async create() {
      const client = new Redis(REDIS_URL ?? '', { maxRetriesPerRequest: 1 });
      cleanups.push(() => client.quit());
      return redisStore(client, { prefix: `gw-sec:${randomUUID()}:` });
    },
  },
  {
    name: 'postgres',
    skip: missing('DATABASE_URL'),
    async create() {
      const db = pgSchema('complete');
      cleanups.push(() => db.drop());
      const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
      cleanups.push(() => pool.end());
      const store = postgresStore(pool, { schema: db.schema });
      await store.migrate();
      return store;
    },
  },
];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`${backend.name}: the done record cannot be written`, () => {
    const setup = async (create: typeof createReceiver = createReceiver) => {
      const b = breakable(await backend.create());
      const effects = new Map<string, number>();
      const errors: WebhookError[] = [];
      const receiver = create(petstore, {
        secret: SECRET,
        store: b.store,
        leaseMs: LEASE_MS,
        storeTimeoutMs: 1000,
        onError: (error) => errors.push(error),
        handlers: {
          'pet.adopted': async (event) => {
            effects.set(event.id, (effects.get(event.id) ?? 0) + 1);
          },
        },
      });
      cleanups.push(() => receiver.stop());
      const send = async (d: ReturnType<typeof delivery>) => {
        const result = await within(receiver.handle(d), 5000, 'receiver.handle');
        return { status: result.status, body: JSON.parse(result.body) as unknown };
      };
      return { ...b, effects, errors, send };
    };

    it('a duplicate after the lease is 409 in progress, and once the store is back: one effect', async () => {
      const t = await setup();
      const d = delivery('pet.adopted', adopted());
      const id = JSON.parse(d.body).id as string;
      t.set('fail');
      expect(await t.send(d)).toEqual({ status: 200, body: { status: 'processed' } });
      await sleep(3 * LEASE_MS);
      expect(await t.send(d)).toMatchObject({ status: 409, body: { error: { code: 'in_progress' } } });
      expect(t.effects.get(id)).toBe(1);

      t.set('ok');
      await eventually(
        async () => ((await t.send(d)).body as { status?: string }).status === 'already processed',
        'the completion written in the background',
      );
      expect(t.effects.get(id)).toBe(1);
      expect(t.errors.filter((e) => e.code === 'completion_failed')).toHaveLength(1);
    });

    it('a hanging completion does not hold the answer: 200 at the store deadline, done later', async () => {
      const t = await setup();
      const d = delivery('pet.adopted', adopted());
      const id = JSON.parse(d.body).id as string;
      t.set('hang');
      expect(await t.send(d)).toEqual({ status: 200, body: { status: 'processed' } });
      expect(await t.send(d)).toMatchObject({ status: 409 });
      t.set('ok');
      await eventually(
        async () => ((await t.send(d)).body as { status?: string }).status === 'already processed',
        'the completion written in the background',
      );
      expect(t.effects.get(id)).toBe(1);
    });

    it('a completion failing for longer than the lease is reported once as completion_failed', async () => {
      const t = await setup();
      const d = delivery('pet.adopted', adopted());
      t.set('fail');
      expect((await t.send(d)).status).toBe(200);
      await eventually(
        () => t.calls() >= 4 && t.errors.some((e) => e.code === 'completion_failed'),
        'the report',
      );
      await sleep(2 * LEASE_MS);
      const reports = t.errors.filter((e) => e.code === 'completion_failed');
      expect(reports).toHaveLength(1);
      expect(reports[0]?.status).toBe(503);
      // Still retried, still held: no second run.
      expect(await t.send(d)).toMatchObject({ status: 409 });
      expect([...t.effects.values()]).toEqual([1]);
    });
    it('Web: a complete failing twice lands before the 200, so a duplicate is at once "already processed"', async () => {
      const t = await setup(createWebReceiver);
      const d = delivery('pet.adopted', adopted());
      const id = JSON.parse(d.body).id as string;
      t.set('fail', 2);
      expect(await t.send(d)).toEqual({ status: 200, body: { status: 'processed' } });
      expect(t.calls()).toBe(3);
      expect(await t.send(d)).toEqual({ status: 200, body: { status: 'already processed' } });
      expect(t.effects.get(id)).toBe(1);
      expect(t.errors).toEqual([]);
    });

    it('Web: a hanging complete is given up within about two store deadlines, reported once', async () => {
      const t = await setup(createWebReceiver);
      const d = delivery('pet.adopted', adopted());
      t.set('hang');
      const started = Date.now();
      expect(await t.send(d)).toEqual({ status: 200, body: { status: 'processed' } });
      // The first complete and one retry, each cut at the 1 s deadline (no retry starts after it).
      expect(Date.now() - started).toBeLessThan(2600);
      expect(t.calls()).toBe(2);
      const reports = t.errors.filter((e) => e.code === 'completion_failed');
      expect(reports).toHaveLength(1);
      expect(reports[0]?.details).toEqual({ attempts: 2 });
      // The claim is held for the rest of its lease: a duplicate meanwhile is not run.
      expect(await t.send(d)).toMatchObject({ status: 409 });
      expect([...t.effects.values()]).toEqual([1]);
    });
  });
}
