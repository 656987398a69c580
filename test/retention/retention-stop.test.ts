import { describe, expect, it } from 'vitest';
import type { PruneOutboxResult } from '../../runtime/deliver/outbox-prune.js';
import { isWebhookError } from '../../runtime/errors.js';
import { startRetention } from '../../runtime/retention.js';

const EMPTY: PruneOutboxResult = { messages: 0, deliveries: 0, attempts: 0, batches: 1, vacuumedPages: 0 };
const quiet = { info: () => {}, error: () => {} };

/** A prune whose one batch takes `batchMs` and cannot be interrupted (one DELETE). */
function slowPrune(batchMs: number) {
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  let ended = false;
  const prune = async () => {
    started();
    await new Promise((r) => setTimeout(r, batchMs));
    ended = true;
    return EMPTY;
  };
  return { prune, running, ended: () => ended };
}

describe('retention.stop({ timeoutMs })', () => {
  it('waits for the batch in progress when it ends before the deadline', async () => {
    const outbox = slowPrune(50);
    const retention = startRetention({
      outbox,
      keepAttempts: 0,
      keepMessages: 0,
      firstRunMs: 0,
      logger: quiet,
    });
    await outbox.running;
    expect(await retention.stop({ timeoutMs: 5000 })).toEqual({ finished: true });
    expect(outbox.ended()).toBe(true);
  });

  it('returns at the deadline when the batch runs on, saying so', async () => {
    const outbox = slowPrune(2000);
    const retention = startRetention({
      outbox,
      keepAttempts: 0,
      keepMessages: 0,
      firstRunMs: 0,
      logger: quiet,
    });
    await outbox.running;
    expect(await retention.stop({ timeoutMs: 20 })).toEqual({ finished: false });
    expect(outbox.ended()).toBe(false);
  });

  it('with nothing running resolves at once; refuses a negative deadline', async () => {
    const retention = startRetention({
      outbox: slowPrune(1),
      keepAttempts: 0,
      keepMessages: 0,
      logger: quiet,
    });
    const error = await retention.stop({ timeoutMs: -5 }).catch((e: unknown) => e);
    expect(isWebhookError(error, 'invalid_config')).toBe(true);
    expect(await retention.stop()).toEqual({ finished: true });
  });
});
