import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectCode } from '../../test/presets/helpers.js';
import { providers } from './registry.js';
import { twilioSigningString, withTwilioBodyHash } from './twilio.js';

const { twilio } = providers;

const token = '12345';
const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
const form =
  'CallSid=CA1234567890ABCDE&Caller=%2B12349013030&Digits=1234&From=%2B12349013030&To=%2B18005551212';
const mac = (data: string, algorithm = 'sha1', key = token) =>
  createHmac(algorithm, key).update(data).digest('base64');

describe('twilio preset', () => {
  const scheme = twilio.scheme({ secret: token });

  it('builds the signing string from the URL and the sorted parameters', () => {
    expect(twilioSigningString(url, { To: 'b', CallSid: 'a', Digits: ['2', '1', '2'] })).toBe(
      `${url}CallSidaDigits1Digits2Tob`,
    );
  });

  it("reproduces Twilio's documented example (docs/usage/security)", async () => {
    const headers = { 'X-Twilio-Signature': '0/KCTR6DLpKmkAf8muzZqo1nDgQ=' };
    expect(await scheme.verify({ headers, body: form, url })).toMatchObject({ id: expect.any(String) });
    expect((await scheme.sign({ id: 'i', timestamp: 0, body: form, url }))['X-Twilio-Signature']).toBe(
      '0/KCTR6DLpKmkAf8muzZqo1nDgQ=',
    );
  });

  it('verifies form posts, with and without the default port', async () => {
    const expected = mac(
      `${url}CallSidCA1234567890ABCDECaller+12349013030Digits1234From+12349013030To+18005551212`,
    );
    const headers = { 'X-Twilio-Signature': expected };
    expect(await scheme.verify({ headers, body: form, url })).toMatchObject({
      id: expect.stringMatching(/^twilio:/),
    });
    // Signed without the port, received with it (and vice versa).
    const ported = url.replace('mycompany.com', 'mycompany.com:443');
    expect(await scheme.verify({ headers, body: form, url: ported })).toBeTruthy();
    const signedWithPort = mac(
      `${ported}CallSidCA1234567890ABCDECaller+12349013030Digits1234From+12349013030To+18005551212`,
    );
    expect(
      await scheme.verify({ headers: { 'X-Twilio-Signature': signedWithPort }, body: form, url }),
    ).toBeTruthy();
    expect(await scheme.sign({ id: 'i', timestamp: 0, body: form, url })).toEqual({
      'X-Twilio-Signature': expected,
      'I-Twilio-Idempotency-Token': 'i',
    });
  });

  it('rejects changed parameters, another URL, wrong tokens', async () => {
    const headers = await scheme.sign({ id: 'i', timestamp: 0, body: form, url });
    await expectCode(
      () => scheme.verify({ headers, body: form.replace('1234&', '1235&'), url }),
      'invalid_signature',
    );
    await expectCode(() => scheme.verify({ headers, body: `${form}&Extra=1`, url }), 'invalid_signature');
    await expectCode(
      () => scheme.verify({ headers, body: form, url: url.replace('foo=1', 'foo=2') }),
      'invalid_signature',
    );
    await expectCode(
      () => twilio.scheme({ secret: 'other' }).verify({ headers, body: form, url }),
      'invalid_signature',
    );
  });

  it('needs the public URL: a clear invalid_config without it; publicUrl overrides the request URL', async () => {
    const headers = await scheme.sign({ id: 'i', timestamp: 0, body: form, url });
    const error = await expectCode(() => scheme.verify({ headers, body: form }), 'invalid_config', 500);
    expect(error.message).toMatch(/public URL/);
    await expectCode(() => scheme.sign({ id: 'i', timestamp: 0, body: form }), 'invalid_config');
    const proxied = twilio.scheme({
      secret: token,
      publicUrl: (requestUrl) => `https://mycompany.com${new URL(requestUrl ?? '').pathname}?foo=1&bar=2`,
    });
    expect(
      await proxied.verify({ headers, body: form, url: 'http://10.0.0.7:8080/myapp.php?foo=1&bar=2' }),
    ).toBeTruthy();
    const fixed = twilio.scheme({ secret: token, publicUrl: url });
    expect(await fixed.verify({ headers, body: form })).toBeTruthy();
    await expectCode(() => scheme.verify({ headers, body: form, url: 'not a url' }), 'invalid_config');
    const throwing = twilio.scheme({
      secret: token,
      publicUrl: () => {
        throw new TypeError('no host header');
      },
    });
    await expectCode(() => throwing.verify({ headers, body: form, url }), 'invalid_config');
  });

  it('covers JSON bodies through bodySHA256', async () => {
    const json = '{"a":1}';
    const hashed = withTwilioBodyHash('https://mycompany.com/hook?x=1', json);
    expect(hashed).toMatch(/^https:\/\/mycompany\.com\/hook\?x=1&bodySHA256=[0-9a-f]{64}$/);
    const headers = { 'X-Twilio-Signature': mac(hashed) };
    expect(await scheme.verify({ headers, body: json, url: hashed })).toBeTruthy();
    await expectCode(() => scheme.verify({ headers, body: '{"a":2}', url: hashed }), 'invalid_signature');
    expect(twilio.parseBody(json, { 'content-type': 'application/json' })).toEqual({ a: 1 });
  });

  it('supports HMAC-SHA256 (SharedKey) from configuration or the settings header', async () => {
    const data = twilioSigningString(url, { A: '1' });
    const sha256 = { 'X-Twilio-Signature': mac(data, 'sha256') };
    await expectCode(() => scheme.verify({ headers: sha256, body: 'A=1', url }), 'malformed_header');
    const announced = {
      ...sha256,
      'X-Twilio-Webhooks-Signature-Settings': 'key=webhooks_sharedkey_1,algorithm=HMAC_SHA256',
    };
    expect(await scheme.verify({ headers: announced, body: 'A=1', url })).toBeTruthy();
    const configured = twilio.scheme({ secret: token, algorithm: 'sha256' });
    expect(await configured.verify({ headers: sha256, body: 'A=1', url })).toBeTruthy();
    expect(await configured.sign({ id: 'i', timestamp: 0, body: 'A=1', url })).toMatchObject({
      'X-Twilio-Webhooks-Signature-Settings': 'algorithm=HMAC_SHA256',
    });
    await expectCode(
      () =>
        scheme.verify({
          headers: { ...sha256, 'X-Twilio-Webhooks-Signature-Settings': 'algorithm=HMAC_MD5' },
          body: 'A=1',
          url,
        }),
      'malformed_header',
    );
  });

  it('reports missing and malformed signatures', async () => {
    await expectCode(() => scheme.verify({ headers: {}, body: form, url }), 'missing_header');
    for (const value of ['%%%', mac('x', 'sha256'), 'AAAA']) {
      await expectCode(
        () => scheme.verify({ headers: { 'X-Twilio-Signature': value }, body: form, url }),
        'malformed_header',
      );
    }
  });

  it('uses I-Twilio-Idempotency-Token as the dedupe key when present', async () => {
    const headers = await scheme.sign({ id: 'idem-1', timestamp: 0, body: form, url });
    const verified = await scheme.verify({ headers, body: form, url });
    expect(verified).toEqual({ id: 'idem-1' });
    const parsed = twilio.parseBody(form, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(twilio.eventId(headers, parsed, verified)).toBe('idem-1');
    const bare = { 'X-Twilio-Signature': headers['X-Twilio-Signature'] ?? '' };
    const fallback = await scheme.verify({ headers: bare, body: form, url });
    expect(twilio.eventId(bare, parsed, fallback)).toBe(fallback.id);
    expect(twilio.eventType({}, { CallStatus: 'completed' })).toBe('completed');
    expect(twilio.eventType({}, { EventType: 'onMessageAdded', CallStatus: 'x' })).toBe('onMessageAdded');
  });
});
