import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clockAt, expectCode, tamper } from '../../test/presets/helpers.js';
import { providers } from './registry.js';

const { shopify } = providers;

const secret = 'shpss_0123456789abcdef';
const body = JSON.stringify({ id: 820982911946154500, email: 'jon@example.com' });
const mac = (payload: string, key = secret) => createHmac('sha256', key).update(payload).digest('base64');
const T = 1_732_000_000;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** Same bytes under a lenient decoder, but with non-zero padding bits: not the canonical spelling. */
const nonCanonical = (b64: string) => {
  const last = ALPHABET.indexOf(b64.charAt(b64.length - 2));
  return `${b64.slice(0, -2)}${ALPHABET.charAt((last & ~3) | 1)}=`;
};

describe('shopify preset', () => {
  const scheme = shopify.scheme({ secret });

  it('verifies the base64 HMAC of the raw body', async () => {
    const headers = {
      'X-Shopify-Hmac-Sha256': mac(body),
      'X-Shopify-Topic': 'orders/create',
      'X-Shopify-Event-Id': '98880550-7158-44d4-b7cd-2c97c8a091b5',
      'X-Shopify-Webhook-Id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
    };
    expect(await scheme.verify({ headers, body })).toEqual({
      id: 'orders/create:98880550-7158-44d4-b7cd-2c97c8a091b5',
    });
    const signed = await scheme.sign({ id: 'w1', timestamp: T, body });
    expect(signed['X-Shopify-Hmac-Sha256']).toBe(mac(body));
    expect(signed['X-Shopify-Triggered-At']).toBe(new Date(T * 1000).toISOString());
  });

  it('dedupes on the event id (scoped by topic), falling back to the webhook id', () => {
    const base = { 'x-shopify-topic': 'orders/create', 'x-shopify-webhook-id': 'w-1' };
    expect(shopify.eventId({ ...base, 'x-shopify-event-id': 'e-1' }, {})).toBe('orders/create:e-1');
    expect(shopify.eventId(base, {})).toBe('w-1');
    expect(shopify.eventType(base, {})).toBe('orders/create');
    expect(shopify.match('orders/create')).toEqual({ header: 'orders/create' });
  });

  it('rejects tampered bodies, wrong secrets, malformed and missing headers', async () => {
    await expectCode(
      () => scheme.verify({ headers: { 'X-Shopify-Hmac-Sha256': mac(body) }, body: tamper(body) }),
      'invalid_signature',
    );
    await expectCode(
      () => scheme.verify({ headers: { 'X-Shopify-Hmac-Sha256': mac(body, 'x') }, body }),
      'invalid_signature',
    );
    await expectCode(() => scheme.verify({ headers: {}, body }), 'missing_header');
    const good = mac(body);
    for (const value of [
      'not base64!',
      good.slice(0, -4),
      Buffer.from('short').toString('base64'),
      nonCanonical(good),
    ]) {
      await expectCode(
        () => scheme.verify({ headers: { 'X-Shopify-Hmac-Sha256': value }, body }),
        'malformed_header',
      );
    }
  });

  it('checks X-Shopify-Triggered-At only when maxAge is set', async () => {
    const strict = shopify.scheme({ secret, maxAge: 4 * 3600, now: clockAt(T) });
    const at = (seconds: number) => ({
      'X-Shopify-Hmac-Sha256': mac(body),
      // Shopify sends nanosecond precision.
      'X-Shopify-Triggered-At': new Date(seconds * 1000).toISOString().replace('Z', '123456Z'),
    });
    expect(await strict.verify({ headers: at(T - 3600), body })).toEqual({});
    const error = await expectCode(
      () => strict.verify({ headers: at(T - 5 * 3600), body }),
      'timestamp_too_old',
    );
    expect(error.details.header).toBe('x-shopify-triggered-at');
    expect(await scheme.verify({ headers: at(T - 30 * 86400), body })).toEqual({});
    await expectCode(
      () => strict.verify({ headers: { 'X-Shopify-Hmac-Sha256': mac(body) }, body }),
      'missing_header',
    );
    await expectCode(
      () =>
        strict.verify({
          headers: { 'X-Shopify-Hmac-Sha256': mac(body), 'X-Shopify-Triggered-At': 'yesterday' },
          body,
        }),
      'malformed_header',
    );
    await expectCode(() => shopify.scheme({ secret, maxAge: -1 }), 'invalid_config');
  });
});
