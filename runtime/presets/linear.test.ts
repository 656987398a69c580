/**
 * Linear, cross-checked with Linear's own SDK (`@linear/sdk/webhooks`: LinearWebhookClient.verify, hex
 * HMAC-SHA256 of the raw body, `webhookTimestamp` within 60 s) and
 * https://linear.app/developers/webhooks ("Securing webhooks").
 */
import { createHmac } from 'node:crypto';
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clockAt, expectCode, tamper } from '../../test/presets/helpers.js';
import { linear } from './linear.js';

const secret = 'lin_wh_7f2b9c0d1e4a5b6c7d8e9f0a1b2c3d4e';
const T_MS = 1_732_000_000_250;
const payload = (webhookTimestamp: number) =>
  JSON.stringify({
    action: 'create',
    type: 'Issue',
    createdAt: '2024-11-19T07:06:39.000Z',
    data: { id: '9f1b5b3e-8a1d-4c1e-9a55-2f2b0e6f3a10', title: 'Presets', teamId: 't1' },
    url: 'https://linear.app/acme/issue/ENG-1',
    webhookTimestamp,
    webhookId: 'b5a7c3b4-1111-4a2b-9c8d-000000000001',
  });
const hex = (text: string) => createHmac('sha256', secret).update(text).digest('hex');

afterEach(() => vi.useRealTimers());

describe('linear preset vs @linear/sdk', () => {
  it('accepts and refuses exactly what LinearWebhookClient.verify does, around its 60 s window', async () => {
    const client = new LinearWebhookClient(secret);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -120_000, max: 120_000 }), fc.boolean(), async (skew, corrupt) => {
        const body = payload(T_MS + skew);
        const signature = corrupt ? hex(tamper(body)) : hex(body);
        vi.useFakeTimers({ now: T_MS });
        let sdk = true;
        try {
          client.verify(Buffer.from(body), signature);
        } catch {
          sdk = false;
        }
        vi.useRealTimers();
        const ours = await Promise.resolve(
          linear
            .scheme({ secret, now: () => T_MS })
            .verify({ headers: { 'linear-signature': signature }, body }),
        ).then(
          () => true,
          () => false,
        );
        expect(ours).toBe(sdk);
      }),
      { numRuns: 200 },
    );
  });

  it('signs what the SDK verifies; the key survives a re-sent (re-timestamped) delivery', async () => {
    const first = payload(T_MS);
    const retry = payload(T_MS + 60_000 * 60);
    const headers = await linear.scheme({ secret }).sign({ id: '-', timestamp: 0, body: first });
    vi.useFakeTimers({ now: T_MS });
    expect(
      new LinearWebhookClient(secret).verify(Buffer.from(first), headers['Linear-Signature'] ?? ''),
    ).toBe(true);
    vi.useRealTimers();
    const a = await linear.scheme({ secret, now: () => T_MS }).verify({ headers, body: first });
    const b = await linear
      .scheme({ secret, now: () => T_MS + 60_000 * 60 })
      .verify({ headers: { 'Linear-Signature': hex(retry) }, body: retry });
    expect(a.id).toBe('linear:Issue:create:9f1b5b3e-8a1d-4c1e-9a55-2f2b0e6f3a10:2024-11-19T07:06:39.000Z');
    expect(b.id).toBe(a.id);
    expect(linear.eventType({}, linear.parseBody(first, {}))).toBe('Issue');
  });

  it('refuses a signed body without webhookTimestamp and non-canonical signatures', async () => {
    const body = JSON.stringify({ action: 'create', type: 'Issue', data: { id: '1' } });
    await expectCode(
      () =>
        linear
          .scheme({ secret, now: clockAt(0) })
          .verify({ headers: { 'linear-signature': hex(body) }, body }),
      'invalid_body',
    );
    await expectCode(
      () =>
        linear
          .scheme({ secret, now: () => T_MS })
          .verify({ headers: { 'linear-signature': hex(payload(T_MS)).toUpperCase() }, body: payload(T_MS) }),
      'malformed_header',
    );
  });
});
