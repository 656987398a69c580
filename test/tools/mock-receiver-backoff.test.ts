/**
 * mock-receiver as the other end of a retrying sender: `--fail-first 3` must make a sender that
 * follows the contract's schedule retry exactly three times, and the report must show the schedule's
 * gaps. The sender is driven by the runtime's `classifyAttempt` + `nextDelay` with an injected clock
 * shared with the receiver, so the gaps are exact without waiting.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type MockReceiver, startMockReceiver } from '../../generator/tools/mock-receiver.js';
import { attemptDelays, nextDelay } from '../../runtime/backoff.js';
import { classifyAttempt } from '../../runtime/classify.js';
import type { BackoffConfig } from '../../runtime/contract.js';

// The Petstore contract's `x-gen-webhooks.retry` (schemas/petstore.openapi.yaml).
const PETSTORE_RETRY: BackoffConfig = {
  kind: 'exponential',
  initialDelay: 1,
  factor: 2,
  maxDelay: 512,
  maxAttempts: 10,
};

let receiver: MockReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

interface SenderRun {
  readonly attempts: number;
  readonly outcome: 'delivered' | 'dead-lettered';
  readonly waitsMs: number[];
}

/** A minimal sender loop: attempt, classify, wait the scheduled delay on the fake clock, repeat. */
async function deliver(
  url: string,
  id: string,
  retry: BackoffConfig,
  clock: { now: number },
): Promise<SenderRun> {
  const waitsMs: number[] = [];
  for (let attempt = 1; attempt <= attemptDelays(retry).length; attempt += 1) {
    let status: number | undefined;
    let error: unknown;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': id },
        body: JSON.stringify({ id, type: 'pet.adopted', data: {} }),
      });
      status = res.status;
      await res.arrayBuffer();
    } catch (caught) {
      error = caught;
    }
    const classification = classifyAttempt(status === undefined ? { error } : { status });
    if (classification.outcome === 'success') return { attempts: attempt, outcome: 'delivered', waitsMs };
    if (classification.outcome !== 'retry') break;
    const wait = nextDelay(retry, attempt, { rng: () => 0.5, now: () => clock.now });
    if (wait === null) break;
    waitsMs.push(wait);
    clock.now += wait;
  }
  return { attempts: waitsMs.length + 1, outcome: 'dead-lettered', waitsMs };
}

describe('mock-receiver --fail-first with a retrying sender', () => {
  it('sees exactly 3 retries on the contract schedule, 4 attempts with gaps 1s, 2s, 4s', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    receiver = await startMockReceiver(
      { port: 0, failFirst: 3, quiet: true },
      { stdout: { write: () => true }, stderr: { write: () => true }, env: {}, now: () => clock.now },
    );
    const run = await deliver(receiver.url, 'msg_backoff_1', PETSTORE_RETRY, clock);
    expect(run).toEqual({ attempts: 4, outcome: 'delivered', waitsMs: [1000, 2000, 4000] });

    const report = (await (await fetch(`${receiver.url}/__report`)).json()) as {
      events: Array<{
        id: string;
        attempts: number;
        delivered: boolean;
        gapsMs: number[];
        history: Array<{ status: number }>;
      }>;
    };
    expect(report.events).toHaveLength(1);
    expect(report.events[0]).toMatchObject({
      id: 'msg_backoff_1',
      attempts: 4,
      delivered: true,
      gapsMs: [1000, 2000, 4000],
    });
    expect(report.events[0]?.history.map((h) => h.status)).toEqual([500, 500, 500, 200]);
  });

  it('shows a dead-lettered event when the receiver never recovers', async () => {
    const clock = { now: Date.UTC(2026, 0, 1) };
    receiver = await startMockReceiver(
      { port: 0, failFirst: 100, status: 503, quiet: true },
      { stdout: { write: () => true }, stderr: { write: () => true }, env: {}, now: () => clock.now },
    );
    const short: BackoffConfig = { kind: 'list', delays: [0, 5, 300] };
    const run = await deliver(receiver.url, 'msg_dead', short, clock);
    expect(run.outcome).toBe('dead-lettered');
    const event = receiver.report().events[0];
    expect(event).toMatchObject({ attempts: 3, delivered: false, gapsMs: [5000, 300_000] });
  });
});
