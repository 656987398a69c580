/** Receivers for provider-preset contracts use the preset's id/type rules, TTL and handshakes. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { providerContract } from '../../runtime/presets/provider-contract.js';
import { getProvider } from '../../runtime/presets/registry.js';
import { createReceiver } from '../../runtime/receive/receiver-web.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { RETRY_WINDOWS } from '../../runtime/stores/retry-windows.js';
import type { CompleteOptions, IdempotencyStore } from '../../runtime/stores/types.js';

/** A memory store that records the TTLs it was asked to keep keys for. */
function recordingStore(): { store: IdempotencyStore; ttls: number[] } {
  const inner = memoryStore();
  const ttls: number[] = [];
  return {
    ttls,
    store: {
      ...inner,
      complete: (key: string, options: CompleteOptions) => {
        ttls.push(options.ttlMs);
        return inner.complete(key, options);
      },
    },
  };
}

describe('preset contracts', () => {
  it('stripe: dedupes on the evt_ id across re-signed retries and keeps keys for the Stripe window', async () => {
    const contract = providerContract('stripe', {
      'invoice.paid': z.object({ id: z.string(), amount_paid: z.number() }),
    });
    const secret = 'whsec_stripe_test_secret';
    const scheme = getProvider('stripe').scheme({ secret });
    const { store, ttls } = recordingStore();
    const handled: unknown[] = [];
    const receiver = createReceiver(contract, {
      secret,
      store,
      handlers: { 'invoice.paid': (event) => void handled.push([event.id, event.data]) },
    });
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'invoice.paid',
      created: 1,
      data: { object: { id: 'in_1', amount_paid: 500 } },
    });
    const now = Math.floor(Date.now() / 1000);
    // Each Stripe retry is signed again with a new timestamp; the event id stays the same.
    const first = await receiver.handle({
      headers: await scheme.sign({ id: 'x', timestamp: now, body }),
      body,
    });
    const retry = await receiver.handle({
      headers: await scheme.sign({ id: 'x', timestamp: now + 1, body }),
      body,
    });
    expect(first).toMatchObject({ status: 200, outcome: 'processed', id: 'evt_1' });
    expect(retry).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(handled).toHaveLength(1);
    expect(ttls).toEqual([RETRY_WINDOWS.stripe]);
  });

  it('slack: answers the url_verification handshake after verifying it, without a handler', async () => {
    const contract = providerContract('slack', {});
    const secret = 'slack-signing-secret';
    const scheme = getProvider('slack').scheme({ secret });
    const receiver = createReceiver(contract, { secret, store: memoryStore(), handlers: {} });
    const body = JSON.stringify({ type: 'url_verification', challenge: 'c-123', token: 't' });
    const headers = await scheme.sign({ id: 'x', timestamp: Math.floor(Date.now() / 1000), body });
    const answer = await receiver.handle({ headers, body });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ challenge: 'c-123' });
    const forged = await receiver.handle({
      headers: { ...headers, 'x-slack-signature': `v0=${'0'.repeat(64)}` },
      body,
    });
    expect(forged.status).toBe(401);
  });
});
