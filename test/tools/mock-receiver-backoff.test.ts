/**
 * mock-receiver as the other end of a retrying sender: `--fail-first 3` must make the runtime's sender
 * (`createSender(...).sendNow`, the Petstore contract's own retry schedule) retry exactly three
 * times, and the report must show 4 attempts with the schedule's gaps. Sender and receiver share an
 * injected clock and the sender's sleep advances it, so the gaps are exact without waiting.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ContractModel } from '../../generator/model.js';
import { loadContract } from '../../generator/parse/index.js';
import { type MockReceiver, startMockReceiver } from '../../generator/tools/mock-receiver.js';
import { attemptDelays } from '../../runtime/backoff.js';
import { createSender } from '../../runtime/deliver/index.js';
import { contractFromModel, memoryIo, PETSTORE } from './helpers.js';

let model: ContractModel;
let receiver: MockReceiver | undefined;

beforeAll(async () => {
  model = await loadContract(PETSTORE);
});
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function setup() {
  const clock = { now: Date.UTC(2026, 0, 1) };
  const now = () => clock.now;
  const sender = createSender(contractFromModel(model), {
    urlPolicy: { allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] },
    now,
    sleep: async (ms) => {
      clock.now += ms;
    },
    rng: () => 0.5,
  });
  return { clock, now, sender };
}

const example = () => model.events.find((e) => e.name === 'pet.adopted')?.examples[0] as never;

describe('mock-receiver --fail-first with the runtime sender', () => {
  it('the Petstore schedule retries exactly 3 times: 4 attempts, gaps 1s, 2s, 4s', async () => {
    const { now, sender } = setup();
    receiver = await startMockReceiver({ port: 0, failFirst: 3, quiet: true }, memoryIo({}, now));
    expect(model.retry).toMatchObject({ kind: 'exponential', initialDelay: 1, factor: 2 });

    const result = await sender.sendNow('pet.adopted', example(), {
      url: `${receiver.url}/hooks`,
      secret: 'mock-secret',
      ...(model.retry ? { retry: model.retry } : {}),
    });
    expect(result.delivered).toBe(true);
    expect(result.attempts).toHaveLength(4);

    const report = (await (await fetch(`${receiver.url}/__report`)).json()) as {
      events: Array<{
        id: string;
        idSource: string;
        type: string;
        attempts: number;
        delivered: boolean;
        gapsMs: number[];
        history: Array<{ status: number }>;
      }>;
    };
    expect(report.events).toHaveLength(1);
    expect(report.events[0]).toMatchObject({
      id: result.messageId,
      type: 'pet.adopted',
      attempts: 4,
      delivered: true,
      gapsMs: [1000, 2000, 4000],
    });
    expect(report.events[0]?.history.map((h) => h.status)).toEqual([500, 500, 500, 200]);
  });

  it('a receiver that never recovers: the sender gives up after the schedule, the report says not delivered', async () => {
    const { now, sender } = setup();
    receiver = await startMockReceiver(
      { port: 0, failFirst: 100, status: 503, quiet: true },
      memoryIo({}, now),
    );
    const retry = { kind: 'list', delays: [0, 5, 300] } as const;
    const result = await sender.sendNow('pet.adopted', example(), {
      url: receiver.url,
      secret: 'mock-secret',
      retry,
    });
    expect(result.delivered).toBe(false);
    const event = receiver.report().events[0];
    expect(event).toMatchObject({
      attempts: attemptDelays(retry).length,
      delivered: false,
      gapsMs: [5000, 300_000],
    });
    expect(event?.history.every((h) => h.status === 503)).toBe(true);
  });
});
