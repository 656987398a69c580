/**
 * Lemon Squeezy, following https://docs.lemonsqueezy.com/help/webhooks/signing-requests (X-Signature =
 * hex HMAC-SHA256 of the raw body with the signing secret). Expected signatures come from node:crypto.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectCode, tamper } from '../../test/presets/helpers.js';
import { lemonSqueezy } from './lemon-squeezy.js';

const secret = 'ls-signing-secret-0123456789';
const body = JSON.stringify({
  meta: { event_name: 'order_created', custom_data: { customer_id: 25 }, webhook_id: 'b5a7-1' },
  data: { type: 'orders', id: '1', attributes: { store_id: 1, total: 999, status: 'paid' } },
});
const header = createHmac('sha256', secret).update(body).digest('hex');

describe('lemon-squeezy preset', () => {
  const scheme = lemonSqueezy.scheme({ secret });

  it('verifies X-Signature and keys on the body hash; the type is the signed meta.event_name', async () => {
    const verified = await scheme.verify({ headers: { 'x-signature': header }, body });
    expect(verified.id).toBe(`lemon-squeezy:${createHash('sha256').update(body).digest('hex')}`);
    expect(await scheme.sign({ id: '-', timestamp: 0, body })).toEqual({ 'X-Signature': header });
    expect(
      lemonSqueezy.eventType({ 'x-event-name': 'subscription_created' }, lemonSqueezy.parseBody(body, {})),
    ).toBe('order_created');
    await expectCode(
      () => scheme.verify({ headers: { 'x-signature': header }, body: tamper(body) }),
      'invalid_signature',
    );
    await expectCode(
      () => scheme.verify({ headers: { 'x-signature': `sha256=${header}` }, body }),
      'malformed_header',
    );
  });
});
