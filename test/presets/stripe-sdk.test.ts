/** Cross-check with Stripe's own SDK: its test headers verify with the preset, and ours with it. */
import fc from 'fast-check';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { providers } from '../../runtime/presets/index.js';
import { clockAt, expectCode } from './helpers.js';

const secret = 'whsec_b8c3e0a1f2d94c5e8a7b6c5d4e3f2a1b';
const client = new Stripe('sk_test_not_used_offline');
const T = 1_732_000_000;
const event = (id: string, type: string) =>
  JSON.stringify(
    { id, object: 'event', api_version: '2024-06-20', created: T, type, data: { object: { id: 'pi_1' } } },
    null,
    2,
  );

describe('stripe preset vs the stripe SDK', () => {
  const scheme = providers.stripe.scheme({ secret, now: clockAt(T) });

  it('verifies headers from stripe.webhooks.generateTestHeaderString', async () => {
    const payload = event('evt_1', 'payment_intent.succeeded');
    const header = client.webhooks.generateTestHeaderString({ payload, secret, timestamp: T });
    expect(await scheme.verify({ headers: { 'stripe-signature': header }, body: payload })).toEqual({
      timestamp: T,
    });
    await expectCode(
      () =>
        scheme.verify({ headers: { 'stripe-signature': header }, body: payload.replace('evt_1', 'evt_2') }),
      'invalid_signature',
    );
  });

  it('produces headers stripe.webhooks.constructEvent accepts, also mid-rotation', async () => {
    const payload = event('evt_2', 'invoice.paid');
    const rotating = providers.stripe.scheme({ secret: ['whsec_previous', secret], now: clockAt(T) });
    const headers = await rotating.sign({ id: 'evt_2', timestamp: T, body: payload });
    const header = headers['Stripe-Signature'] ?? '';
    const constructed = client.webhooks.constructEvent(payload, header, secret, 300, undefined, T * 1000);
    expect(constructed.id).toBe('evt_2');
    expect(
      client.webhooks.constructEvent(payload, header, 'whsec_previous', 300, undefined, T * 1000).type,
    ).toBe('invoice.paid');
    expect(() =>
      client.webhooks.constructEvent(payload, header, 'whsec_wrong', 300, undefined, T * 1000),
    ).toThrow();
  });

  it('agrees with the SDK on arbitrary payloads and timestamps, both ways', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.json({ maxDepth: 3 }),
        fc.integer({ min: -300, max: 300 }),
        async (payload, skew) => {
          const timestamp = T + skew;
          const theirs = client.webhooks.generateTestHeaderString({ payload, secret, timestamp });
          await scheme.verify({ headers: { 'Stripe-Signature': theirs }, body: payload });
          const ours =
            (await scheme.sign({ id: 'evt', timestamp, body: Buffer.from(payload) }))['Stripe-Signature'] ??
            '';
          expect(ours).toBe(theirs);
          client.webhooks.constructEvent(payload, ours, secret, 300, undefined, T * 1000);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('the tolerance split matches stripe-node exactly', () => {
  it('accepts future timestamps and refuses stale ones as constructEvent does', async () => {
    const scheme = providers.stripe.scheme({
      secret,
      now: clockAt(T),
      tolerance: { past: 300, future: Number.POSITIVE_INFINITY },
    });
    const twoSided = providers.stripe.scheme({ secret, now: clockAt(T) });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -2000, max: 10_000_000 }), async (skew) => {
        const payload = event('evt_skew', 'invoice.paid');
        const header = client.webhooks.generateTestHeaderString({ payload, secret, timestamp: T + skew });
        let sdk = true;
        try {
          client.webhooks.constructEvent(payload, header, secret, 300, undefined, T * 1000);
        } catch {
          sdk = false;
        }
        const ours = await (async () =>
          scheme.verify({ headers: { 'stripe-signature': header }, body: payload }))().then(
          () => true,
          () => false,
        );
        expect(ours).toBe(sdk);
        // The default window stays two-sided: a timestamp more than 300 s ahead is refused.
        if (skew > 300) {
          await expectCode(
            () => twoSided.verify({ headers: { 'stripe-signature': header }, body: payload }),
            'timestamp_too_new',
          );
        }
      }),
      { numRuns: 200 },
    );
  });
});
