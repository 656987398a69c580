/**
 * A done record that fails to write after the handler succeeded, with a store whose `complete`
 * fails N times: the Node parts retry it in the background (the answer does not wait, the claim is
 * held until it lands), the Web parts retry it a few times before answering (edge runtimes do not
 * reliably run the timers of an answered request) and then give up with `completion_failed`.
 */
import { describe, expect, it, vi } from 'vitest';
import { adopted, delivery, petstore, SECRET } from '../../test/receiver/fixtures.js';
import type { WebhookError } from '../errors.js';
import { memoryStore } from '../stores/memory.js';
import { createReceiverWith } from './create-receiver.js';
import { standardWebhooksParts as nodeParts } from './parts-node.js';
import { standardWebhooksParts as webParts } from './parts-web.js';
import { createReceiver as createNodeReceiver } from './receiver-node.js';
import { createReceiver as createWebReceiver } from './receiver-web.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A memory store whose `complete` rejects `failures` times (Infinity: until `heal()`). */
function flaky(failures: number) {
  const store = memoryStore();
  let left = failures;
  let calls = 0;
  return {
    store: {
      ...store,
      complete: (key: string, options: { ttlMs: number; now: number }) => {
        calls++;
        if (left-- > 0) return Promise.reject(new Error('connection reset while writing done'));
        return store.complete(key, options);
      },
    },
    calls: () => calls,
    heal: () => {
      left = 0;
    },
  };
}

function options(store: ReturnType<typeof flaky>['store'], extra: object = {}) {
  const errors: WebhookError[] = [];
  const handler = vi.fn();
  return {
    errors,
    handler,
    options: {
      secret: SECRET,
      store,
      onError: (error: WebhookError) => void errors.push(error),
      handlers: { 'pet.adopted': handler },
      ...extra,
    },
  };
}

const failures = (errors: WebhookError[]) => errors.filter((e) => e.code === 'completion_failed');

describe('Web parts: failed completions are retried before answering', () => {
  it('a complete that fails twice lands before the 200: a duplicate is at once "already processed"', async () => {
    const s = flaky(2);
    const t = options(s.store);
    const receiver = createWebReceiver(petstore, t.options);
    const d = delivery('pet.adopted', adopted());
    expect(await receiver.handle(d)).toMatchObject({ status: 200, outcome: 'processed' });
    expect(s.calls()).toBe(3);
    expect(await receiver.handle(d)).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(t.handler).toHaveBeenCalledTimes(1);
    expect(t.errors).toEqual([]);
  });

  it('a complete that keeps failing: four attempts, completion_failed once, then the 200', async () => {
    const s = flaky(Number.POSITIVE_INFINITY);
    const t = options(s.store);
    const receiver = createReceiverWith(petstore, t.options, webParts);
    const d = delivery('pet.adopted', adopted());
    expect(await receiver.handle(d)).toMatchObject({ status: 200, outcome: 'processed' });
    expect(s.calls()).toBe(4);
    const reports = failures(t.errors);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ status: 503, details: { attempts: 4 } });
    expect(reports[0]?.message).toMatch(/gave up after 4 attempts/);
    // The claim is still held (its lease not yet expired): no second run meanwhile.
    expect(await receiver.handle(d)).toMatchObject({ status: 409, outcome: 'in_progress' });
    await receiver.stop();
    expect(s.calls()).toBe(4);
    expect(t.handler).toHaveBeenCalledTimes(1);
  });

  it('no retry starts later than one store deadline after the first failure', async () => {
    const s = flaky(Number.POSITIVE_INFINITY);
    const t = options(s.store, { storeTimeoutMs: 60 });
    const receiver = createWebReceiver(petstore, t.options);
    const started = Date.now();
    expect((await receiver.handle(delivery('pet.adopted', adopted()))).status).toBe(200);
    // Retries after 50 ms and 150 ms; the next would start 350 ms in, past the 60 ms deadline.
    expect(s.calls()).toBe(3);
    expect(Date.now() - started).toBeLessThan(340);
    expect(failures(t.errors)[0]?.details).toEqual({ attempts: 3 });
  });

  it('once given up, the claim is no longer renewed: a duplicate after the lease runs again', async () => {
    const s = flaky(Number.POSITIVE_INFINITY);
    const t = options(s.store, { leaseMs: 150 });
    const receiver = createWebReceiver(petstore, t.options);
    const d = delivery('pet.adopted', adopted());
    expect((await receiver.handle(d)).status).toBe(200);
    s.heal();
    await sleep(400);
    expect(await receiver.handle(d)).toMatchObject({ status: 200, outcome: 'processed' });
    expect(t.handler).toHaveBeenCalledTimes(2);
  });
});

describe('Node parts: failed completions are retried in the background', () => {
  it('the 200 does not wait; the claim is held (409) until the record lands, then "already processed"', async () => {
    const s = flaky(2);
    const t = options(s.store);
    const receiver = createReceiverWith(petstore, t.options, nodeParts);
    const d = delivery('pet.adopted', adopted());
    expect(await receiver.handle(d)).toMatchObject({ status: 200, outcome: 'processed' });
    expect(s.calls()).toBe(1);
    expect(await receiver.handle(d)).toMatchObject({ status: 409, outcome: 'in_progress' });
    // Background retries after 100 ms and 200 ms.
    await vi.waitFor(() => expect(s.calls()).toBe(3), { timeout: 2000 });
    expect(await receiver.handle(d)).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(t.handler).toHaveBeenCalledTimes(1);
    expect(t.errors).toEqual([]);
    await receiver.stop();
  });

  it('the claim stays renewed while retrying: a duplicate after the lease is still 409', async () => {
    const s = flaky(Number.POSITIVE_INFINITY);
    const t = options(s.store, { leaseMs: 150 });
    const receiver = createNodeReceiver(petstore, t.options);
    const d = delivery('pet.adopted', adopted());
    expect((await receiver.handle(d)).status).toBe(200);
    await sleep(400);
    expect(await receiver.handle(d)).toMatchObject({ status: 409, outcome: 'in_progress' });
    // Still failing one lease after the handler finished: reported once, retries go on.
    expect(failures(t.errors)).toHaveLength(1);
    s.heal();
    await receiver.stop();
    expect(await receiver.handle(d)).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(t.handler).toHaveBeenCalledTimes(1);
  });

  it('stop() makes one last attempt at a done record still retried in the background', async () => {
    const s = flaky(Number.POSITIVE_INFINITY);
    const t = options(s.store);
    const receiver = createNodeReceiver(petstore, t.options);
    const d = delivery('pet.adopted', adopted());
    expect(await receiver.handle(d)).toMatchObject({ status: 200, outcome: 'processed' });
    expect(await receiver.handle(d)).toMatchObject({ status: 409, outcome: 'in_progress' });
    s.heal();
    await receiver.stop();
    expect(await receiver.handle(d)).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(t.handler).toHaveBeenCalledTimes(1);
  });
});
