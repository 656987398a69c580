/**
 * A backlog on one endpoint: the claim's per-endpoint cap cut every claim short, so the worker took
 * each claim for the last due work and waited a poll interval after it (with the default 500 ms,
 * `concurrency` deliveries per interval), and excluded the endpoint while its attempts ran (an empty
 * claim). Must hold: the worker claims that endpoint's work ahead and keeps going without poll
 * waits, never exceeding the endpoint's cap in flight, and every delivery is attempted once.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClaimedDelivery, Outbox } from '../../runtime/deliver/outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { ClaimedQueue } from '../../runtime/deliver/worker-queue.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { LOCAL, petContract, readBody, startServer, type TestServer, tempDir } from './helpers.js';

const dir = tempDir('read-ahead');
const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

interface BacklogOptions {
  readonly concurrency: number;
  readonly perEndpoint?: number;
  readonly timeoutMs?: number;
  /** Called with the outbox before the worker starts (to wrap its methods). */
  readonly watch?: (outbox: Outbox) => void;
}

async function backlog(name: string, count: number, options: BacklogOptions) {
  let inFlight = 0;
  let maxInFlight = 0;
  const server = await startServer(async (req, res) => {
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    await readBody(req);
    await new Promise((r) => setTimeout(r, 2));
    inFlight--;
    res.end('ok');
  });
  servers.push(server);
  const outbox = sqliteOutbox(path.join(dir, `${name}.db`));
  const contract = petContract();
  const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
  await manager.register({ url: `${server.url}/hooks`, events: ['pet.adopted'] });
  const sender = createSender(contract, { outbox });
  for (let i = 0; i < count; i++) await sender.send('pet.adopted', { petId: `p${i}`, by: 'w' });
  options.watch?.(outbox);
  const worker = createWorker({
    outbox,
    contract,
    urlPolicy: LOCAL,
    concurrency: options.concurrency,
    ...(options.perEndpoint ? { perEndpointConcurrency: options.perEndpoint } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    // Long enough that a single wait per claim would blow the deadline below many times over.
    pollIntervalMs: 2000,
  });
  const started = performance.now();
  worker.start();
  while ((await outbox.listDeliveries({ status: 'succeeded', limit: count })).length < count) {
    if (performance.now() - started > 15_000) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const elapsed = performance.now() - started;
  await worker.stop();
  const deliveries = await outbox.listDeliveries({ limit: count + 1 });
  await outbox.close();
  return { elapsed, maxInFlight, deliveries };
}

describe('a backlog on one endpoint', () => {
  it('is delivered without a poll wait per claim, within the endpoint cap', async () => {
    const { elapsed, maxInFlight, deliveries } = await backlog('capped', 80, { concurrency: 4 });
    expect(deliveries.every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
    expect(maxInFlight).toBeLessThanOrEqual(4);
    // Before: 20 claims of 4, each followed by the 2 s poll interval.
    expect(elapsed).toBeLessThan(3000);
  }, 30_000);

  it('with a per-endpoint cap of 1, the next claim follows each attempt', async () => {
    const { elapsed, maxInFlight, deliveries } = await backlog('one', 12, {
      concurrency: 8,
      perEndpoint: 1,
    });
    expect(deliveries.every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
    expect(maxInFlight).toBe(1);
    expect(elapsed).toBeLessThan(3000);
  }, 30_000);
});

describe('ClaimedQueue', () => {
  const delivery = (id: string, endpointId: string) =>
    ({ id, endpoint: { id: endpointId } }) as unknown as ClaimedDelivery;

  it('starts the first queued delivery whose endpoint has a free slot, and counts what is held', () => {
    const queue = new ClaimedQueue(1);
    expect(queue.admit([delivery('a1', 'a'), delivery('a2', 'a'), delivery('b1', 'b')])).toBe(true);
    expect(queue.take()?.id).toBe('a1');
    queue.started('a');
    expect(queue.take()?.id).toBe('b1');
    expect(queue.take()).toBeUndefined();
    expect(queue.held('a')).toBe(2);
    expect(queue.atLeast(2, false)).toEqual(['a']);
    expect(queue.atLeast(1, true)).toEqual(['a']);
    queue.ended('a');
    expect(queue.take()?.id).toBe('a2');
    expect(queue.length).toBe(0);
  });

  it('a claim below the cap of every endpoint is not cut short', () => {
    expect(new ClaimedQueue(3).admit([delivery('a1', 'a'), delivery('a2', 'a'), delivery('b1', 'b')])).toBe(
      false,
    );
  });
});

describe('claims under a backlog', () => {
  it('take a whole round each, hold at most three rounds, and lease for three attempts', async () => {
    const count = 200;
    const sizes: number[] = [];
    const leases: number[] = [];
    let held = 0;
    let maxHeld = 0;
    const watch = (outbox: Outbox) => {
      const claim = outbox.claim.bind(outbox);
      const complete = outbox.complete.bind(outbox);
      outbox.claim = async (options) => {
        leases.push(options.leaseMs);
        const batch = await claim(options);
        if (batch.length > 0) sizes.push(batch.length);
        held += batch.length;
        maxHeld = Math.max(maxHeld, held);
        return batch;
      };
      outbox.complete = async (input) => {
        held--;
        return complete(input);
      };
    };
    const { deliveries } = await backlog('rounds', count, { concurrency: 8, timeoutMs: 20_000, watch });
    expect(deliveries.every((d) => d.status === 'succeeded' && d.attempts === 1)).toBe(true);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(count);
    // The first claim fills the empty worker; every later one takes a round (8), the last the rest.
    expect(sizes.slice(1, -1).every((n) => n === 8)).toBe(true);
    expect(maxHeld).toBeLessThanOrEqual(24);
    expect(new Set(leases)).toEqual(new Set([3 * 20_000 + 5000]));
  }, 30_000);
});
