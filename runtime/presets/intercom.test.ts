/**
 * Intercom, following https://developers.intercom.com/docs/references/webhooks/webhook-models
 * ("Signed notifications": X-Hub-Signature = sha1= + hex HMAC-SHA1 of the body with the client
 * secret). Expected signatures come from node:crypto here.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clockAt, expectCode, tamper } from '../../test/presets/helpers.js';
import { intercom } from './intercom.js';

const clientSecret = 'c1a2b3c4-d5e6-f7a8-b9c0-d1e2f3a4b5c6';
const T = 1_732_000_000;
const body = JSON.stringify({
  type: 'notification_event',
  app_id: 'abc123',
  data: { type: 'notification_event_data', item: { type: 'conversation', id: '1' } },
  id: 'notif_ccd8a4d2-3fbc-4c1d-8d0a-6c07c3ef3d2f',
  topic: 'conversation.user.created',
  delivery_status: 'pending',
  delivery_attempts: 1,
  first_sent_at: T,
  created_at: T,
});
const header = `sha1=${createHmac('sha1', clientSecret).update(body).digest('hex')}`;

describe('intercom preset', () => {
  const scheme = intercom.scheme({ secret: clientSecret });

  it('verifies X-Hub-Signature (HMAC-SHA1) and keys on the notification id', async () => {
    await scheme.verify({ headers: { 'x-hub-signature': header }, body });
    expect(await scheme.sign({ id: '-', timestamp: 0, body })).toEqual({ 'X-Hub-Signature': header });
    const parsed = intercom.parseBody(body, {});
    expect(intercom.eventId({}, parsed)).toBe('notif_ccd8a4d2-3fbc-4c1d-8d0a-6c07c3ef3d2f');
    expect(intercom.eventType({}, parsed)).toBe('conversation.user.created');
    await expectCode(
      () => scheme.verify({ headers: { 'x-hub-signature': header }, body: tamper(body) }),
      'invalid_signature',
    );
    await expectCode(
      () => scheme.verify({ headers: { 'x-hub-signature': header.replace('sha1=', 'sha256=') }, body }),
      'malformed_header',
    );
  });

  it('bounds the signed first_sent_at only when maxAge is set', async () => {
    const headers = { 'x-hub-signature': header };
    await intercom.scheme({ secret: clientSecret, now: clockAt(T + 10 ** 6) }).verify({ headers, body });
    await intercom
      .scheme({ secret: clientSecret, maxAge: 3600, now: clockAt(T + 3600) })
      .verify({ headers, body });
    await expectCode(
      () =>
        intercom
          .scheme({ secret: clientSecret, maxAge: 3600, now: clockAt(T + 3601) })
          .verify({ headers, body }),
      'timestamp_too_old',
    );
  });
});
