import { beforeEach, describe, expect, it } from 'vitest';
import { adopted, delivery, petstore, SECRET } from '../../test/receiver/fixtures.js';
import { isWebhookError } from '../errors.js';
import { memoryStore } from '../stores/memory.js';
import { createReceiver } from './receiver-web.js';

describe('receiver.close({ timeoutMs })', () => {
  let started!: () => void;
  let running: Promise<void>;
  beforeEach(() => {
    running = new Promise<void>((r) => (started = r));
  });

  it('waits for a handler that ends before the deadline (drained, its event completed)', async () => {
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      handlers: {
        'pet.adopted': () => {
          started();
          return new Promise((r) => setTimeout(r, 30));
        },
      },
    });
    const d = delivery('pet.adopted', adopted());
    const answer = receiver.handle(d);
    await running;
    expect(await receiver.close({ timeoutMs: 5000 })).toEqual({ drained: 1, released: 0 });
    expect((await answer).status).toBe(200);
    expect((await receiver.handle(d)).outcome).toBe('duplicate');
  });

  it('at the deadline aborts event.signal and releases the claim even when the handler runs on', async () => {
    let signal: AbortSignal | undefined;
    let calls = 0;
    const store = memoryStore();
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store,
      handlers: {
        'pet.adopted': (event) => {
          calls++;
          signal = event.signal;
          started();
          // Ignores the signal and never settles: the claim must not stay held or be completed.
          return calls === 1 ? new Promise(() => {}) : undefined;
        },
      },
    });
    const d = delivery('pet.adopted', adopted());
    const answer = receiver.handle(d);
    await running;
    expect(await receiver.close({ timeoutMs: 20 })).toEqual({ drained: 0, released: 1 });
    expect(signal?.aborted).toBe(true);
    expect((await answer).status).toBe(500);
    // Released, not completed: the retry (another process, here the same store) runs the event.
    const other = createReceiver(petstore, {
      secret: SECRET,
      store,
      handlers: { 'pet.adopted': () => void calls++ },
    });
    expect((await other.handle(d)).outcome).toBe('processed');
  });

  it('refuses a deadline that is not a number of ms ≥ 0', async () => {
    const receiver = createReceiver(petstore, { secret: SECRET, store: memoryStore() });
    const error = await receiver.close({ timeoutMs: Number.NaN }).catch((e: unknown) => e);
    expect(isWebhookError(error, 'invalid_config')).toBe(true);
    expect(await receiver.close()).toEqual({ drained: 0, released: 0 });
  });
});
