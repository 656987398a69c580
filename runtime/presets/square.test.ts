/**
 * Square: the vector of Square's webhook-signature guide and SDK (WebhooksHelper.verifySignature's
 * test: https://developer.squareup.com/docs/webhooks/step3validate, signature = base64 HMAC-SHA256 of
 * notification URL + body with the signature key), and node:crypto for the rest.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectCode, tamper } from '../../test/presets/helpers.js';
import { square } from './square.js';

const body =
  '{"merchant_id":"MLEFBHHSJGVHD","type":"webhooks.test_notification","event_id":"ac3ac95b-f97d-458c-a6e6-18981597e05f","created_at":"2022-07-13T20:30:59.037339943Z","data":{"type":"webhooks","id":"bc368e64-01aa-407e-b46e-3231809b1129"}}';
const signatureKey = 'Ibxx_5AKakO-3qeNVR61Dw';
const notificationUrl = 'https://webhook.site/679a4f3a-dcfa-49ee-bac5-9d0edad886b9';
const header = 'GF4YkrJgGBDZ9NIYbNXBnMzqb2HoL4RW/S6vkZ9/2N4=';

describe('square preset', () => {
  const scheme = square.scheme({ secret: signatureKey });

  it("reproduces Square's documented vector", async () => {
    expect(
      createHmac('sha256', signatureKey)
        .update(notificationUrl + body)
        .digest('base64'),
    ).toBe(header);
    await scheme.verify({ headers: { 'x-square-hmacsha256-signature': header }, body, url: notificationUrl });
    expect(await scheme.sign({ id: '-', timestamp: 0, body, url: notificationUrl })).toEqual({
      'x-square-hmacsha256-signature': header,
    });
    const parsed = square.parseBody(body, {});
    expect(square.eventId({}, parsed)).toBe('ac3ac95b-f97d-458c-a6e6-18981597e05f');
    expect(square.eventType({}, parsed)).toBe('webhooks.test_notification');
  });

  it('signs the registered URL: another URL, body or key fails; publicUrl fixes a proxied URL', async () => {
    const headers = { 'x-square-hmacsha256-signature': header };
    await expectCode(() => scheme.verify({ headers, body, url: `${notificationUrl}/` }), 'invalid_signature');
    await expectCode(
      () => scheme.verify({ headers, body: tamper(body), url: notificationUrl }),
      'invalid_signature',
    );
    await expectCode(
      () => square.scheme({ secret: 'other' }).verify({ headers, body, url: notificationUrl }),
      'invalid_signature',
    );
    await expectCode(() => scheme.verify({ headers, body }), 'invalid_config');
    const proxied = square.scheme({ secret: signatureKey, publicUrl: notificationUrl });
    await proxied.verify({ headers, body, url: 'http://10.0.0.7:8080/square' });
    await expectCode(
      () =>
        scheme.verify({
          headers: { 'x-square-hmacsha256-signature': header.replace('=', '') },
          body,
          url: notificationUrl,
        }),
      'malformed_header',
    );
  });
});
