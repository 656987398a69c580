import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clockAt, expectCode, tamper } from '../../test/presets/helpers.js';
import { providers } from './registry.js';

const { stripe } = providers;

const secret = 'whsec_test_6mQpK1nN2XzB0yQ5';
const T = 1_732_000_000;
const body = JSON.stringify({
  id: 'evt_1Q',
  object: 'event',
  type: 'payment_intent.succeeded',
  data: { object: {} },
});

function v1(key: string, timestamp: number, payload: string): string {
  return createHmac('sha256', key).update(`${timestamp}.${payload}`).digest('hex');
}

describe('stripe preset', () => {
  const scheme = stripe.scheme({ secret, now: clockAt(T) });

  it('signs t=…,v1=… with the whsec_ string itself as the HMAC key and verifies it', async () => {
    const headers = await scheme.sign({ id: 'evt_1Q', timestamp: T, body });
    expect(headers).toEqual({ 'Stripe-Signature': `t=${T},v1=${v1(secret, T, body)}` });
    expect(await scheme.verify({ headers, body })).toEqual({ timestamp: T });
  });

  it('accepts any of several v1 entries (secret roll) and ignores v0 and unknown schemes', async () => {
    const header = `t=${T},v0=${'0'.repeat(64)},v1=${v1('whsec_old', T, body)},v9=zz,v1=${v1(secret, T, body)}`;
    expect(await scheme.verify({ headers: { 'stripe-signature': header }, body })).toEqual({ timestamp: T });
  });

  it('signs with every configured secret during a rotation; each alone verifies', async () => {
    const rolling = stripe.scheme({ secret: ['whsec_old', secret], now: clockAt(T) });
    const headers = await rolling.sign({ id: 'x', timestamp: T, body });
    expect(headers['Stripe-Signature']?.match(/v1=/g)).toHaveLength(2);
    expect(await scheme.verify({ headers, body })).toEqual({ timestamp: T });
    expect(await stripe.scheme({ secret: 'whsec_old', now: clockAt(T) }).verify({ headers, body })).toEqual({
      timestamp: T,
    });
  });

  it('rejects a tampered body and a wrong secret with invalid_signature', async () => {
    const headers = await scheme.sign({ id: 'x', timestamp: T, body });
    await expectCode(() => scheme.verify({ headers, body: tamper(body) }), 'invalid_signature', 401);
    const other = stripe.scheme({ secret: 'whsec_other', now: clockAt(T) });
    await expectCode(() => other.verify({ headers, body }), 'invalid_signature');
  });

  it('enforces the 300 s window both ways, inclusive at the edge', async () => {
    const old = await scheme.sign({ id: 'x', timestamp: T - 301, body });
    await expectCode(() => scheme.verify({ headers: old, body }), 'timestamp_too_old', 400);
    const future = await scheme.sign({ id: 'x', timestamp: T + 301, body });
    await expectCode(() => scheme.verify({ headers: future, body }), 'timestamp_too_new');
    const edge = await scheme.sign({ id: 'x', timestamp: T - 300, body });
    expect(await scheme.verify({ headers: edge, body })).toEqual({ timestamp: T - 300 });
    const lax = stripe.scheme({ secret, now: clockAt(T), tolerance: 3600 });
    expect(await lax.verify({ headers: old, body })).toEqual({ timestamp: T - 301 });
  });

  it('reports missing and malformed headers', async () => {
    await expectCode(() => scheme.verify({ headers: {}, body }), 'missing_header');
    const sig = v1(secret, T, body);
    for (const header of [
      'garbage',
      `v1=${sig}`,
      `t=${T}`,
      `t=${T},v0=${sig}`,
      `t=1e9,v1=${sig}`,
      `t=${T},t=${T},v1=${sig}`,
    ]) {
      const error = await expectCode(
        () => scheme.verify({ headers: { 'Stripe-Signature': header }, body }),
        'malformed_header',
      );
      expect(error.details.header).toBe('stripe-signature');
    }
    // A v1 that is not a hex digest can never match.
    await expectCode(
      () => scheme.verify({ headers: { 'Stripe-Signature': `t=${T},v1=nothex` }, body }),
      'invalid_signature',
    );
  });

  it('refuses empty secrets and parsed bodies', async () => {
    await expectCode(() => stripe.scheme({ secret: '' }), 'invalid_secret');
    await expectCode(() => stripe.scheme({ secret: [] }), 'invalid_secret');
    const headers = await scheme.sign({ id: 'x', timestamp: T, body });
    await expectCode(() => scheme.verify({ headers, body: JSON.parse(body) }), 'parsed_body');
  });

  it('takes the event id and type from the body', () => {
    const parsed = stripe.parseBody(body, {});
    expect(stripe.eventId({}, parsed)).toBe('evt_1Q');
    expect(stripe.eventType({}, parsed)).toBe('payment_intent.succeeded');
    expect(stripe.match('payment_intent.succeeded')).toEqual({ body: 'payment_intent.succeeded' });
    expect(stripe.dedupeTtlMs).toBeGreaterThan(3 * 86_400_000);
    expect(stripe.defaultMode).toBe('inline');
    expect(() => stripe.parseBody('{', {})).toThrowError(expect.objectContaining({ code: 'invalid_body' }));
  });
});
