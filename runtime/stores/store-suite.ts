/**
 * The behaviour every IdempotencyStore must have, run by each store's test file against a real backend.
 * Clocks are injected (`now` is an argument of every operation), so lease expiry and TTLs are tested
 * without waiting.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdempotencyStore } from './types.js';

export interface StoreSuiteOptions<Tx> {
  /** Builds the store under test (unique tables/prefixes per test file). */
  readonly create: () => Promise<IdempotencyStore<Tx>> | IdempotencyStore<Tx>;
  /** Called once after the suite (drop tables, close clients). */
  readonly teardown?: () => Promise<void>;
  /** The backend expires keys itself, so `cleanup` removes nothing. */
  readonly expiresItself?: boolean;
  /** The store implements `transaction` (transactional mode). */
  readonly transactions?: boolean;
  /** The store has an ack-fast `queue`. */
  readonly queue?: boolean;
  /** Skip the whole suite (e.g. no DATABASE_URL). */
  readonly skip?: boolean;
}

const T0 = 1_700_000_000_000;
const LEASE = 30_000;
const TTL = 60_000;

export function runStoreSuite<Tx>(name: string, options: StoreSuiteOptions<Tx>): void {
  describe.skipIf(options.skip === true)(`${name}: IdempotencyStore contract`, () => {
    let store: IdempotencyStore<Tx>;
    const prefix = `${name}-${randomUUID()}`;
    let counter = 0;
    const key = (): string => `${prefix}:${++counter}`;

    beforeAll(async () => {
      store = await options.create();
    });
    afterAll(async () => {
      await store?.close?.();
      await options.teardown?.();
    });

    it('claims a new key once, reports in_progress while leased and duplicate once done', async () => {
      const k = key();
      expect(await store.claim(k, { leaseMs: LEASE, now: T0, token: 'a' })).toBe('claimed');
      expect(await store.claim(k, { leaseMs: LEASE, now: T0 + 1, token: 'b' })).toBe('in_progress');
      await store.complete(k, { ttlMs: TTL, now: T0 + 2 });
      expect(await store.claim(k, { leaseMs: LEASE, now: T0 + 3, token: 'c' })).toBe('duplicate');
    });

    it('keeps keys independent', async () => {
      const a = key();
      const b = key();
      expect(await store.claim(a, { leaseMs: LEASE, now: T0, token: 'a' })).toBe('claimed');
      expect(await store.claim(b, { leaseMs: LEASE, now: T0, token: 'b' })).toBe('claimed');
      await store.complete(a, { ttlMs: TTL, now: T0 });
      expect(await store.claim(b, { leaseMs: LEASE, now: T0, token: 'c' })).toBe('in_progress');
    });

    it('lets the owner release a claim so a retry can process the event', async () => {
      const k = key();
      expect(await store.claim(k, { leaseMs: LEASE, now: T0, token: 'owner' })).toBe('claimed');
      await store.release(k, { token: 'owner' });
      expect(await store.claim(k, { leaseMs: LEASE, now: T0 + 1, token: 'retry' })).toBe('claimed');
    });

    it('ignores a release by a token that does not hold the lease', async () => {
      const k = key();
      expect(await store.claim(k, { leaseMs: LEASE, now: T0, token: 'owner' })).toBe('claimed');
      await store.release(k, { token: 'someone-else' });
      expect(await store.claim(k, { leaseMs: LEASE, now: T0 + 1, token: 'x' })).toBe('in_progress');
    });

    it('never releases a completed key', async () => {
      const k = key();
      expect(await store.claim(k, { leaseMs: LEASE, now: T0, token: 'owner' })).toBe('claimed');
      await store.complete(k, { ttlMs: TTL, now: T0 });
      await store.release(k, { token: 'owner' });
      expect(await store.claim(k, { leaseMs: LEASE, now: T0 + 1, token: 'x' })).toBe('duplicate');
    });

    it('lets a claim be taken over exactly when its lease expires (injected clock)', async () => {
      const k = key();
      expect(await store.claim(k, { leaseMs: 1000, now: T0, token: 'dead' })).toBe('claimed');
      expect(await store.claim(k, { leaseMs: 1000, now: T0 + 999, token: 'early' })).toBe('in_progress');
      expect(await store.claim(k, { leaseMs: 1000, now: T0 + 1000, token: 'next' })).toBe('claimed');
      // The presumed-dead holder wakes up: its release must not free the new owner's lease.
      await store.release(k, { token: 'dead' });
      expect(await store.claim(k, { leaseMs: 1000, now: T0 + 1001, token: 'third' })).toBe('in_progress');
      await store.complete(k, { ttlMs: TTL, now: T0 + 1500 });
      expect(await store.claim(k, { leaseMs: 1000, now: T0 + 1600, token: 'late' })).toBe('duplicate');
    });

    it('renews a lease only for its owner and only while it is still held', async () => {
      const extend = store.extend?.bind(store);
      if (extend === undefined) throw new Error(`${name} cannot renew leases`);
      const k = key();
      expect(await store.claim(k, { leaseMs: 1000, now: T0, token: 'owner' })).toBe('claimed');
      expect(await extend(k, { leaseMs: 1000, now: T0 + 900, token: 'owner' })).toBe(true);
      expect(await extend(k, { leaseMs: 1000, now: T0 + 900, token: 'intruder' })).toBe(false);
      // Renewed to T0 + 1900: still held after the original expiry.
      expect(await store.claim(k, { leaseMs: 1000, now: T0 + 1500, token: 'x' })).toBe('in_progress');
      expect(await store.claim(k, { leaseMs: 1000, now: T0 + 1900, token: 'next' })).toBe('claimed');
      // The first owner lost it: it can neither renew nor release the new owner's lease.
      expect(await extend(k, { leaseMs: 1000, now: T0 + 1950, token: 'owner' })).toBe(false);
      await store.complete(k, { ttlMs: TTL, now: T0 + 2000 });
      expect(await extend(k, { leaseMs: 1000, now: T0 + 2001, token: 'next' })).toBe(false);
      expect(await store.claim(k, { leaseMs: 1000, now: T0 + 2002, token: 'y' })).toBe('duplicate');
    });

    it('forgets a done key after its TTL and cleanup removes expired keys', async () => {
      const keys = [key(), key(), key()];
      for (const k of keys) {
        expect(await store.claim(k, { leaseMs: LEASE, now: T0, token: 't' })).toBe('claimed');
        await store.complete(k, { ttlMs: 5000, now: T0 });
      }
      const kept = key();
      expect(await store.claim(kept, { leaseMs: LEASE, now: T0, token: 't' })).toBe('claimed');
      await store.complete(kept, { ttlMs: 10 * TTL, now: T0 });

      expect(await store.cleanup(T0 + 4999)).toBe(0);
      expect(await store.claim(keys[0] as string, { leaseMs: LEASE, now: T0 + 4999, token: 'u' })).toBe(
        'duplicate',
      );
      const removed = await store.cleanup(T0 + 5000);
      if (options.expiresItself === true) expect(removed).toBe(0);
      else expect(removed).toBeGreaterThanOrEqual(3);
      expect(await store.claim(keys[1] as string, { leaseMs: LEASE, now: T0 + 5000, token: 'v' })).toBe(
        'claimed',
      );
      expect(await store.claim(kept, { leaseMs: LEASE, now: T0 + 5000, token: 'v' })).toBe('duplicate');
    });

    it('grants exactly one of 50 concurrent claims', async () => {
      const k = key();
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => store.claim(k, { leaseMs: LEASE, now: T0, token: `t${i}` })),
      );
      expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
      expect(results.filter((r) => r === 'in_progress')).toHaveLength(49);
    });

    // A sender controls the id; PostgreSQL's btree rejects entries over ~2.7 kB (a poison event).
    // Random text: PostgreSQL compresses a repetitive key below the limit.
    const noise = (bytes: number): string => randomBytes((bytes * 3) / 4).toString('base64');
    it('handles a 3,000-byte key like any other, and keeps long keys that share a prefix apart', async () => {
      const shared = `${key()}:${noise(3000)}`;
      const long = `${shared}:a`;
      const sibling = `${shared}:b`;
      expect(await store.claim(long, { leaseMs: 1000, now: T0, token: 'owner' })).toBe('claimed');
      expect(await store.claim(long, { leaseMs: 1000, now: T0 + 1, token: 'b' })).toBe('in_progress');
      expect(await store.extend?.(long, { leaseMs: 1000, now: T0 + 900, token: 'owner' })).toBe(true);
      await store.release(long, { token: 'owner' });
      expect(await store.claim(long, { leaseMs: 1000, now: T0 + 2, token: 'again' })).toBe('claimed');
      await store.complete(long, { ttlMs: TTL, now: T0 + 3 });
      expect(await store.claim(long, { leaseMs: 1000, now: T0 + 4, token: 'dup' })).toBe('duplicate');
      expect(await store.claim(sibling, { leaseMs: 1000, now: T0 + 4, token: 's' })).toBe('claimed');
      if (options.transactions === true) {
        const tx = store.transaction?.bind(store);
        if (tx === undefined) throw new Error(`${name} has no transaction()`);
        const txKey = `${key()}:${noise(3000)}`;
        const opts = { leaseMs: LEASE, ttlMs: TTL, now: T0, token: 't' };
        expect(await tx(txKey, opts, () => 1)).toEqual({ status: 'committed', value: 1 });
        expect(await tx(txKey, opts, () => 2)).toEqual({ status: 'duplicate' });
        expect(await store.claim(txKey, { leaseMs: LEASE, now: T0, token: 'x' })).toBe('duplicate');
      }
      if (options.queue === true) {
        const queue = store.queue;
        if (queue === undefined) throw new Error(`${name} has no queue`);
        const qKey = `${key()}:${noise(3000)}`;
        expect(await queue.enqueue(qKey, '{}', { now: T0 })).toBe(true);
        expect(await queue.enqueue(qKey, '{}', { now: T0 })).toBe(false);
        const taken = await queue.dequeue({ now: T0 + 200_000, leaseMs: 1000, limit: 100 });
        for (const entry of taken) await queue.ack(entry.seq);
        expect(taken.length).toBeGreaterThanOrEqual(1);
      }
    });

    // Registered only for stores that have the capability (nothing is reported as skipped).
    if (options.transactions === true) {
      it('transaction: commits the done row with the work, rolls both back on failure', async () => {
        const tx = store.transaction?.bind(store);
        if (tx === undefined) throw new Error(`${name} has no transaction()`);
        const opts = { leaseMs: LEASE, ttlMs: TTL, now: T0, token: 't' };
        const failing = key();
        await expect(
          tx(failing, opts, () => {
            throw new Error('boom');
          }),
        ).rejects.toThrow('boom');
        // The rollback removed the dedupe row: the retry runs.
        expect(await tx(failing, opts, () => 7)).toEqual({ status: 'committed', value: 7 });
        expect(await tx(failing, opts, () => 8)).toEqual({ status: 'duplicate' });
        expect(await store.claim(failing, { leaseMs: LEASE, now: T0, token: 'x' })).toBe('duplicate');

        const leased = key();
        expect(await store.claim(leased, { leaseMs: LEASE, now: T0, token: 'x' })).toBe('claimed');
        expect(await tx(leased, opts, () => 1)).toEqual({ status: 'in_progress' });
        expect(await tx(leased, { ...opts, now: T0 + LEASE }, () => 2)).toEqual({
          status: 'committed',
          value: 2,
        });

        const raced = key();
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            tx(raced, opts, async () => {
              await new Promise((resolve) => setTimeout(resolve, 5));
              return i;
            }),
          ),
        );
        expect(results.filter((r) => r.status === 'committed')).toHaveLength(1);
      });
    }

    // Registered only for stores that have the capability (nothing is reported as skipped).
    if (options.queue === true) {
      it('queue: enqueues once per key, leases, retries, acks and dead-letters', async () => {
        const queue = store.queue;
        if (queue === undefined) throw new Error(`${name} has no queue`);
        // Drain leftovers of earlier runs sharing the backend (none expected with unique tables).
        const base = await queue.counts();
        const a = key();
        const b = key();
        expect(await queue.enqueue(a, '{"n":1}', { now: T0 })).toBe(true);
        expect(await queue.enqueue(a, '{"n":1}', { now: T0 })).toBe(false);
        expect(await queue.enqueue(b, '{"n":2}', { now: T0 + 1 })).toBe(true);
        expect(await queue.counts()).toEqual({ pending: base.pending + 2, failed: base.failed });

        const first = await queue.dequeue({ now: T0 + 10, leaseMs: 1000, limit: 1 });
        expect(first).toHaveLength(1);
        expect(first[0]).toMatchObject({ key: a, payload: '{"n":1}', attempts: 1 });
        const second = await queue.dequeue({ now: T0 + 10, leaseMs: 1000, limit: 10 });
        expect(second.map((e) => e.key)).toEqual([b]);
        // Both leased: nothing more is due until a lease expires.
        expect(await queue.dequeue({ now: T0 + 500, leaseMs: 1000, limit: 10 })).toEqual([]);
        // A worker died holding `a`: after the lease it is handed out again.
        const again = await queue.dequeue({ now: T0 + 1010, leaseMs: 1000, limit: 10 });
        expect(again.map((e) => [e.key, e.attempts])).toEqual([
          [a, 2],
          [b, 2],
        ]);
        const [ea, eb] = again;
        if (ea === undefined || eb === undefined) throw new Error('unreachable');
        await queue.retry(ea.seq, { availableAt: T0 + 5000, error: 'Error: flaky' });
        await queue.ack(eb.seq);
        expect(await queue.dequeue({ now: T0 + 4999, leaseMs: 1000, limit: 10 })).toEqual([]);
        const retried = await queue.dequeue({ now: T0 + 5000, leaseMs: 1000, limit: 10 });
        expect(retried.map((e) => [e.key, e.attempts])).toEqual([[a, 3]]);
        await queue.fail((retried[0] as { seq: string }).seq, { error: 'Error: gave up' });
        expect(await queue.counts()).toEqual({ pending: base.pending, failed: base.failed + 1 });
        expect(await queue.dequeue({ now: T0 + 99_999, leaseMs: 1000, limit: 10 })).toEqual([]);
        // A new delivery of a dead-lettered event queues it again.
        expect(await queue.enqueue(a, '{"n":1}', { now: T0 + 100_000 })).toBe(true);
        const revived = await queue.dequeue({ now: T0 + 100_000, leaseMs: 1000, limit: 10 });
        expect(revived.map((e) => [e.key, e.attempts])).toEqual([[a, 1]]);
        await queue.ack((revived[0] as { seq: string }).seq);
      });

      it('queue: renews a take while its handler runs, and gives back attempts that ran nothing', async () => {
        const queue = store.queue;
        if (queue?.extend === undefined) throw new Error(`${name} cannot renew queue leases`);
        const k = key();
        const at = T0 + 1_000_000;
        expect(await queue.enqueue(k, '{}', { now: at })).toBe(true);
        const [first] = await queue.dequeue({ now: at, leaseMs: 1000, limit: 100 });
        if (first === undefined) throw new Error('nothing dequeued');
        expect(first).toMatchObject({ key: k, attempts: 1 });
        // Renewed past its first expiry: nobody else takes it.
        expect(await queue.extend(first.seq, { now: at + 900, leaseMs: 1000, attempts: 1 })).toBe(true);
        expect(await queue.dequeue({ now: at + 1500, leaseMs: 1000, limit: 100 })).toEqual([]);
        // Lease over: another worker takes it (attempt 2); the first take's renewal is fenced off.
        const [second] = await queue.dequeue({ now: at + 1900, leaseMs: 1000, limit: 100 });
        expect(second).toMatchObject({ key: k, attempts: 2 });
        expect(await queue.extend(first.seq, { now: at + 1950, leaseMs: 1000, attempts: 1 })).toBe(false);
        // That take found the event in progress elsewhere: its attempt is given back.
        await queue.retry(first.seq, { availableAt: at + 2000, error: 'in progress', countAttempt: false });
        expect(await queue.extend(first.seq, { now: at + 1960, leaseMs: 1000, attempts: 1 })).toBe(false);
        const [third] = await queue.dequeue({ now: at + 2000, leaseMs: 1000, limit: 100 });
        expect(third).toMatchObject({ key: k, attempts: 2 });
        await queue.ack((third as { seq: string }).seq);
        expect(await queue.extend(first.seq, { now: at + 2001, leaseMs: 1000, attempts: 2 })).toBe(false);
      });
    }
  });
}
