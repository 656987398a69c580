/**
 * HubSpot signature v3, vectors from https://developers.hubspot.com/docs/api/webhooks/validating-requests
 * ("Validate the v3 request signature": base64 HMAC-SHA256 of requestMethod + requestUri + requestBody +
 * timestamp with the client secret; the URI with the listed escapes decoded; older than 5 minutes is
 * refused). Expected signatures come from node:crypto here.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectCode, tamper } from '../../test/presets/helpers.js';
import { hubspot, hubspotSignedUri } from './hubspot.js';

const clientSecret = 'yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy';
const T_MS = 1_732_000_000_123;
const url = 'https://www.example.com/webhook_uri?portal=62515&name=a%3Ab%2Fc%20d';
const signedUri = 'https://www.example.com/webhook_uri?portal=62515&name=a:b/c%20d';
const body = JSON.stringify([
  {
    eventId: 1,
    subscriptionId: 12345,
    portalId: 62515,
    occurredAt: T_MS,
    subscriptionType: 'contact.creation',
    attemptNumber: 0,
    objectId: 123,
    changeSource: 'CRM',
  },
  {
    eventId: 2,
    subscriptionId: 12346,
    portalId: 62515,
    occurredAt: T_MS,
    subscriptionType: 'deal.propertyChange',
    attemptNumber: 0,
    objectId: 456,
    propertyName: 'amount',
    propertyValue: '10',
  },
]);
const v3 = (text: string, ms = T_MS) =>
  createHmac('sha256', clientSecret).update(`POST${signedUri}${text}${ms}`).digest('base64');

describe('hubspot preset (v3)', () => {
  const scheme = hubspot.scheme({ secret: clientSecret, now: () => T_MS });
  const headers = { 'X-HubSpot-Signature-v3': v3(body), 'X-HubSpot-Request-Timestamp': String(T_MS) };

  it('verifies the documented v3 signature and decodes exactly the listed escapes', async () => {
    expect(hubspotSignedUri(url)).toBe(signedUri);
    expect(hubspotSignedUri('https://x.test/?q=%2a%2C%3b%40%21%24%27%28%29%3F%2F%3A%20%25')).toBe(
      "https://x.test/?q=*,;@!$'()?/:%20%25",
    );
    const verified = await scheme.verify({ headers, body, url });
    expect(verified.timestamp).toBe(Math.floor(T_MS / 1000));
    expect(verified.id).toMatch(/^hubspot-batch:[0-9a-f]{64}$/);
    const parsed = hubspot.parseBody(body, headers) as { type: string };
    expect(parsed.type).toBe('batch');
  });

  it('keeps the key across a retry (only attemptNumber changes) and names one event by its type', async () => {
    const retry = body.replaceAll('"attemptNumber":0', '"attemptNumber":1');
    const again = await scheme.verify({
      headers: { 'X-HubSpot-Signature-v3': v3(retry), 'X-HubSpot-Request-Timestamp': String(T_MS) },
      body: retry,
      url,
    });
    expect(again.id).toBe((await scheme.verify({ headers, body, url })).id);
    const one = JSON.stringify([{ eventId: 7, subscriptionType: 'contact.deletion', objectId: 1 }]);
    const single = await scheme.verify({
      headers: { 'X-HubSpot-Signature-v3': v3(one), 'X-HubSpot-Request-Timestamp': String(T_MS) },
      body: one,
      url,
    });
    expect(single.id).toBe('7');
    expect(hubspot.eventType({}, hubspot.parseBody(one, {}))).toBe('contact.deletion');
  });

  it('refuses tampering, another URL, and timestamps older than 5 minutes', async () => {
    await expectCode(() => scheme.verify({ headers, body: tamper(body), url }), 'invalid_signature');
    await expectCode(
      () => scheme.verify({ headers, body, url: 'https://www.example.com/other' }),
      'invalid_signature',
    );
    await expectCode(
      () =>
        hubspot.scheme({ secret: clientSecret, now: () => T_MS + 300_001 }).verify({ headers, body, url }),
      'timestamp_too_old',
    );
    await hubspot.scheme({ secret: clientSecret, now: () => T_MS + 300_000 }).verify({ headers, body, url });
    await expectCode(
      () => scheme.verify({ headers: { ...headers, 'X-HubSpot-Request-Timestamp': `${T_MS}.0` }, body, url }),
      'malformed_header',
    );
    const signed = await scheme.sign({ id: '-', timestamp: Math.floor(T_MS / 1000), body, url });
    await scheme.verify({ headers: signed, body, url });
  });
});
