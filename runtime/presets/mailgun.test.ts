/**
 * Mailgun, following https://documentation.mailgun.com/docs/mailgun/user-manual/tracking-messages/#securing-webhooks
 * (signature = hex HMAC-SHA256 of timestamp + token with the HTTP webhook signing key; check the
 * timestamp). Expected signatures come from node:crypto here.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clockAt, expectCode } from '../../test/presets/helpers.js';
import { mailgun, mailgunSignature } from './mailgun.js';

const signingKey = 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0';
const T = 1_732_000_000;
const token = 'a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0';
const deliveryFor = (signature: object, id = 'CPgfbmQMTCKtHW6uIWtuVe') =>
  JSON.stringify({
    signature,
    'event-data': { id, event: 'delivered', timestamp: T, recipient: 'alice@example.com' },
  });
const documented = {
  timestamp: String(T),
  token,
  signature: createHmac('sha256', signingKey).update(`${T}${token}`).digest('hex'),
};

describe('mailgun preset', () => {
  const scheme = mailgun.scheme({ secret: signingKey, now: clockAt(T) });

  it('verifies the documented timestamp + token HMAC and keys on event-data.id', async () => {
    const body = deliveryFor(documented);
    expect(await scheme.verify({ headers: {}, body })).toEqual({ timestamp: T });
    expect(await mailgunSignature(signingKey, T, token)).toEqual(documented);
    const parsed = mailgun.parseBody(body, {});
    expect(mailgun.eventId({}, parsed)).toBe('CPgfbmQMTCKtHW6uIWtuVe');
    expect(mailgun.eventType({}, parsed)).toBe('delivered');
  });

  it('refuses another token or key, stale timestamps and missing parts', async () => {
    await expectCode(
      () => scheme.verify({ headers: {}, body: deliveryFor({ ...documented, token: `${token}0` }) }),
      'invalid_signature',
    );
    await expectCode(
      () =>
        mailgun
          .scheme({ secret: 'other', now: clockAt(T) })
          .verify({ headers: {}, body: deliveryFor(documented) }),
      'invalid_signature',
    );
    await expectCode(
      () =>
        mailgun
          .scheme({ secret: signingKey, now: clockAt(T + 301) })
          .verify({ headers: {}, body: deliveryFor(documented) }),
      'timestamp_too_old',
    );
    await expectCode(
      () => scheme.verify({ headers: {}, body: deliveryFor({ timestamp: String(T), token }) }),
      'invalid_body',
    );
    await expectCode(
      () => scheme.verify({ headers: {}, body: deliveryFor({ ...documented, timestamp: `${T}.0` }) }),
      'invalid_body',
    );
    await expectCode(() => scheme.verify({ headers: {}, body: '[]' }), 'invalid_body');
  });

  it('does not sign event-data: the residual risk docs/presets.md names', async () => {
    // The same signature block verifies with another event: only the dedupe key and the window limit it.
    const forged = deliveryFor(documented, 'another-event-id');
    expect(await scheme.verify({ headers: {}, body: forged })).toEqual({ timestamp: T });
  });
});
