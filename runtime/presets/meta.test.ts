/**
 * Meta vectors built from https://developers.facebook.com/docs/graph-api/webhooks/getting-started
 * ("Verification Requests": GET with hub.mode=subscribe, hub.verify_token, hub.challenge, answered with
 * the challenge; "Event Notifications": X-Hub-Signature-256 = sha256= + hex HMAC-SHA256 of the payload
 * with the App Secret). Expected signatures come from node:crypto here.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectCode, tamper } from '../../test/presets/helpers.js';
import { meta } from './meta.js';

const appSecret = '2d5f1c0e9b8a7f6e5d4c3b2a19081726';
const body = JSON.stringify({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            messages: [{ id: 'wamid.HBgL', type: 'text', text: { body: 'hi' } }],
          },
        },
      ],
    },
  ],
});
const header = `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;

describe('meta preset', () => {
  const scheme = meta.scheme({ secret: appSecret });

  it('verifies X-Hub-Signature-256 and keys on the body hash', async () => {
    const verified = await scheme.verify({ headers: { 'x-hub-signature-256': header }, body });
    expect(verified).toEqual({ id: `meta:${createHash('sha256').update(body).digest('hex')}` });
    expect(await scheme.sign({ id: '-', timestamp: 0, body })).toEqual({ 'X-Hub-Signature-256': header });
    expect(meta.eventType({}, meta.parseBody(body, {}))).toBe('whatsapp_business_account');
    await expectCode(
      () => scheme.verify({ headers: { 'x-hub-signature-256': header }, body: tamper(body) }),
      'invalid_signature',
    );
    await expectCode(
      () => scheme.verify({ headers: { 'x-hub-signature-256': header.replace('sha256=', 'sha1=') }, body }),
      'malformed_header',
    );
    await expectCode(() => scheme.verify({ headers: {}, body }), 'missing_header');
  });

  it('answers the verification GET only with the right verify token', async () => {
    const url = (token: string) =>
      `https://example.com/meta?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1158201444`;
    const options = { secret: appSecret, verifyToken: 'meatyhamhock' };
    const preflight = meta.preflight;
    if (preflight === undefined) throw new Error('meta has a preflight');
    const ok = await preflight(
      { method: 'GET', url: url('meatyhamhock'), headers: {}, body: new Uint8Array() },
      options,
    );
    expect(ok).toMatchObject({ status: 200, body: '1158201444' });
    await expectCode(
      () => preflight({ method: 'GET', url: url('wrong'), headers: {}, body: new Uint8Array() }, options),
      'invalid_signature',
      403,
    );
    await expectCode(
      () =>
        preflight(
          { method: 'GET', url: url('meatyhamhock'), headers: {}, body: new Uint8Array() },
          { secret: appSecret },
        ),
      'invalid_config',
    );
    // A POST (an event) or a GET without hub.mode is not the handshake.
    expect(
      await preflight({ method: 'POST', url: url('x'), headers: {}, body: new Uint8Array() }, options),
    ).toBeUndefined();
    expect(
      await preflight(
        { method: 'GET', url: 'https://example.com/meta', headers: {}, body: new Uint8Array() },
        options,
      ),
    ).toBeUndefined();
  });
});
