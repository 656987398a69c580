/**
 * Paddle, cross-checked with Paddle's own SDK (@paddle/paddle-node-sdk: Webhooks.isSignatureValid) and
 * with https://developer.paddle.com/webhooks/signature-verification (h1 = hex
 * HMAC-SHA256 of `${ts}:${body}`).
 */
import { createHmac } from 'node:crypto';
import { Environment, Paddle } from '@paddle/paddle-node-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clockAt, expectCode, tamper } from '../../test/presets/helpers.js';
import { paddle } from './paddle.js';

const secret = 'pdl_ntfset_01hv8x6zsv3nq6rpm4wj3c2ged_lKQu5Z6NfEhTnT0q9p0Cw0sVjqS2Uq5h';
const body = JSON.stringify({
  event_id: 'evt_01hv8x2acma2gz9ky2y6tcbrrr',
  event_type: 'transaction.completed',
  occurred_at: '2024-04-12T10:18:47.635628Z',
  notification_id: 'ntf_01hv8x2af7sdp4bmmt4bkp1v3v',
  data: { id: 'txn_01hv8wptq8987qeep44cyrewp9', status: 'completed' },
});

afterEach(() => vi.useRealTimers());

// As Paddle's docs use it: the client's `webhooks` (constructing it sets up the SDK's Node crypto; no
// request is made).
const sdk = new Paddle('pdl_sdbx_apikey_not_used_offline', { environment: Environment.sandbox }).webhooks;

describe('paddle preset vs @paddle/paddle-node-sdk', () => {
  it('signs what the SDK accepts and verifies what the documented algorithm produces', async () => {
    const now = Math.floor(Date.now() / 1000);
    const headers = await paddle.scheme({ secret }).sign({ id: '-', timestamp: now, body });
    const header = headers['Paddle-Signature'] ?? '';
    expect(header).toBe(
      `ts=${now};h1=${createHmac('sha256', secret).update(`${now}:${body}`).digest('hex')}`,
    );
    expect(await sdk.isSignatureValid(body, secret, header)).toBe(true);
    expect(await paddle.scheme({ secret }).verify({ headers: { 'paddle-signature': header }, body })).toEqual(
      {
        timestamp: now,
      },
    );
    expect(await sdk.isSignatureValid(tamper(body), secret, header)).toBe(false);
    await expectCode(
      () => paddle.scheme({ secret }).verify({ headers: { 'paddle-signature': header }, body: tamper(body) }),
      'invalid_signature',
    );
  });

  it("has Paddle's 5-second window; { past: 5, future: Infinity } decides as the SDK does", async () => {
    const T = 1_712_917_127;
    const header = `ts=${T};h1=${createHmac('sha256', secret).update(`${T}:${body}`).digest('hex')}`;
    const headers = { 'paddle-signature': header };
    const sdkLike = { past: 5, future: Number.POSITIVE_INFINITY };
    for (const skew of [-1000, -6, -5, 0, 5, 6, 60, 10_000]) {
      vi.useFakeTimers({ now: (T + skew) * 1000 });
      const accepted = await sdk.isSignatureValid(body, secret, header);
      vi.useRealTimers();
      const ours = await Promise.resolve(
        paddle.scheme({ secret, now: clockAt(T + skew), tolerance: sdkLike }).verify({ headers, body }),
      ).then(
        () => true,
        () => false,
      );
      expect(ours, `skew ${skew}`).toBe(accepted);
    }
    await expectCode(
      () => paddle.scheme({ secret, now: clockAt(T + 6) }).verify({ headers, body }),
      'timestamp_too_old',
    );
    await expectCode(
      () => paddle.scheme({ secret, now: clockAt(T - 6) }).verify({ headers, body }),
      'timestamp_too_new',
    );
  });

  it('accepts any h1 of a rotation and reads the id and type from the signed body', async () => {
    const T = 1_712_917_127;
    const h1 = (key: string) => createHmac('sha256', key).update(`${T}:${body}`).digest('hex');
    const headers = { 'paddle-signature': `ts=${T};h1=${h1('old-secret')};h1=${h1(secret)}` };
    await paddle.scheme({ secret, now: clockAt(T) }).verify({ headers, body });
    await expectCode(
      () =>
        paddle
          .scheme({ secret, now: clockAt(T) })
          .verify({ headers: { 'paddle-signature': `ts=${T}` }, body }),
      'malformed_header',
    );
    const parsed = paddle.parseBody(body, {});
    expect(paddle.eventId({}, parsed)).toBe('evt_01hv8x2acma2gz9ky2y6tcbrrr');
    expect(paddle.eventType({}, parsed)).toBe('transaction.completed');
  });
});
