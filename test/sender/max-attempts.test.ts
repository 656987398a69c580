/**
 * `maxAttempts` is attempts in all, the first delivery included: a receiver that always fails sees
 * exactly `maxAttempts` requests from the outbox worker and from `sendNow`, on both outboxes, and the
 * generated Petstore contract (`maxAttempts: 11`: the first attempt and 10 retries) makes 11.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { totalAttempts } from '../../runtime/backoff.js';
import type { BackoffConfig } from '../../runtime/contract.js';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { contract as petstore } from '../golden/petstore-openapi/contract.js';
import {
  LOCAL,
  outboxFixtures,
  petContract,
  readBody,
  startServer,
  type TestServer,
  virtualClock,
} from './helpers.js';

const FIVE: BackoffConfig = { kind: 'exponential', initialDelay: 1, factor: 2, maxDelay: 4, maxAttempts: 5 };

let server: TestServer;
let requests = 0;
beforeAll(async () => {
  server = await startServer(async (req, res) => {
    await readBody(req);
    requests++;
    res.statusCode = 503;
    res.end();
  });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  requests = 0;
});

describe.each(outboxFixtures)('maxAttempts on $name', (fixture) => {
  let outbox: Outbox;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    if (fixture.skip) return;
    ({ outbox, cleanup } = await fixture.create('max_attempts'));
  });
  afterEach(async () => {
    if (!fixture.skip) await cleanup();
  });

  it.skipIf(fixture.skip)('maxAttempts: 5 makes 5 attempts, then dead-letters', async () => {
    const clock = virtualClock();
    const contract = petContract(FIVE);
    await createEndpointManager({ outbox, contract, urlPolicy: LOCAL }).register({
      url: `${server.url}/h`,
      events: ['pet.adopted'],
    });
    const { deliveryIds } = await createSender(contract, { outbox, now: clock.now }).send('pet.adopted', {
      petId: 'p',
      by: 'q',
    });
    const worker = createWorker({ outbox, contract, urlPolicy: LOCAL, now: clock.now, rng: () => 0.5 });
    for (let round = 0; round < 20; round++) {
      await worker.runOnce();
      const due = await outbox.nextDueAt();
      if (due === undefined) break;
      clock.set(Math.max(due, clock.now()));
    }
    await worker.stop();
    expect(requests).toBe(5);
    expect(await outbox.getDelivery(deliveryIds[0] as string)).toMatchObject({ status: 'dead', attempts: 5 });
    expect(await outbox.listAttempts({ deliveryId: deliveryIds[0] as string })).toHaveLength(5);
  });
});

describe('maxAttempts without an outbox', () => {
  it('sendNow with maxAttempts: 5 makes 5 attempts; the default schedule makes 4', async () => {
    const waits: number[] = [];
    const sender = createSender(petContract(), {
      urlPolicy: LOCAL,
      rng: () => 0.5,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const target = { url: `${server.url}/h`, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };
    const five = await sender.sendNow('pet.adopted', { petId: 'p', by: 'q' }, { ...target, retry: FIVE });
    expect(five.attempts).toHaveLength(5);
    expect(waits).toEqual([1000, 2000, 4000, 4000]);
    const byDefault = await sender.sendNow('pet.adopted', { petId: 'p', by: 'q' }, target);
    expect(byDefault.attempts).toHaveLength(4);
    expect(requests).toBe(9);
  });

  it('the generated Petstore contract (maxAttempts: 11) schedules 11 attempts: 10 retries, 1 s to 512 s', () => {
    expect(petstore.retry).toMatchObject({ kind: 'exponential', maxAttempts: 11 });
    expect(totalAttempts(petstore.retry as BackoffConfig)).toBe(11);
  });
});
