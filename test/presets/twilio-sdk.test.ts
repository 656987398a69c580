/**
 * Cross-check with the `twilio` SDK: getExpectedTwilioSignature / validateRequest /
 * validateRequestWithBody, both ways, including repeated parameters, default ports, URL spellings and
 * the HMAC-SHA256 (SharedKey) variant. The URL and parameter tests are differential: for the same
 * inputs the preset must accept exactly what the SDK accepts.
 */
import fc from 'fast-check';
import twilio from 'twilio';
import { describe, expect, it } from 'vitest';
import { WebhookError } from '../../runtime/errors.js';
import { providers, withTwilioBodyHash } from '../../runtime/presets/index.js';

const token = 'twilio-auth-token-0123456789abcdef';
type Params = Record<string, string | string[]>;

function formBody(params: Params): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const one of Array.isArray(value) ? value : [value]) form.append(key, one);
  }
  return form.toString();
}

async function accepts(
  scheme: ReturnType<typeof providers.twilio.scheme>,
  input: Parameters<typeof scheme.verify>[0],
) {
  try {
    await scheme.verify(input);
    return true;
  } catch (error) {
    if (error instanceof WebhookError && error.code === 'invalid_signature') return false;
    throw error;
  }
}

const keyArb = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,11}$/);
const valueArb = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ unit: 'grapheme', maxLength: 8 }));
const paramsArb: fc.Arbitrary<Params> = fc.dictionary(
  keyArb,
  fc.oneof(valueArb, fc.array(valueArb, { minLength: 2, maxLength: 4 })),
  { maxKeys: 6 },
);

describe('twilio preset vs the twilio SDK', () => {
  const scheme = providers.twilio.scheme({ secret: token });
  const sha256 = providers.twilio.scheme({ secret: token, algorithm: 'sha256' });

  it('form parameters (repeated keys included): SDK signatures verify, ours validate, both ways', async () => {
    await fc.assert(
      fc.asyncProperty(paramsArb, async (params) => {
        const url = 'https://example.com/voice/status?account=AC1&x=a+b';
        const body = formBody(params);
        const theirs = twilio.getExpectedTwilioSignature(token, url, params);
        expect(await accepts(scheme, { headers: { 'X-Twilio-Signature': theirs }, body, url })).toBe(true);
        const ours = (await scheme.sign({ id: 'i', timestamp: 0, body, url }))['X-Twilio-Signature'] ?? '';
        expect(ours).toBe(theirs);
        expect(twilio.validateRequest(token, ours, url, params)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('repeated keys: distinct values sorted, as the SDK does', async () => {
    const params = { Media: ['b', 'a', 'b'], To: '+15005550006' };
    const body = 'Media=b&To=%2B15005550006&Media=a&Media=b';
    const url = 'https://example.com/sms';
    const theirs = twilio.getExpectedTwilioSignature(token, url, params);
    expect(await accepts(scheme, { headers: { 'X-Twilio-Signature': theirs }, body, url })).toBe(true);
    expect(
      await accepts(scheme, {
        headers: { 'X-Twilio-Signature': theirs },
        body: 'Media=b&To=%2B15005550006',
        url,
      }),
    ).toBe(false);
  });

  it('accepts exactly the URL spellings the SDK accepts (ports, escapes, legacy querystring)', async () => {
    const signedUrls = [
      'https://example.com/hook?name=O%27Brien',
      "https://example.com/hook?name=O'Brien",
      'https://example.com:443/hook?a=1&b=2',
      'https://example.com/hook?a=1&b=2',
      'http://example.com:80/hook',
      'http://example.com:8080/hook',
      'https://user@[::1]:443/hook?q=%7Bx%7D',
      'https://example.com/hook?q={x}&r=%20',
    ];
    const receivedUrls = [
      ...signedUrls,
      'https://example.com/hook?name=O%27Brien&extra=1',
      'http://example.com/hook',
      'https://example.com/hook?q=%7Bx%7D&r=%20',
      'https://user@[::1]/hook?q={x}',
      'https://user@[::1]/hook?q=%7Bx%7D',
    ];
    const params = { Body: 'hello', From: '+15005550006' };
    const body = formBody(params);
    let agreed = 0;
    for (const signed of signedUrls) {
      const signature = twilio.getExpectedTwilioSignature(token, signed, params);
      for (const received of receivedUrls) {
        const sdk = twilio.validateRequest(token, signature, received, params);
        const ours = await accepts(scheme, {
          headers: { 'X-Twilio-Signature': signature },
          body,
          url: received,
        });
        expect(ours, `signed ${signed}, received ${received}`).toBe(sdk);
        agreed += sdk ? 1 : 0;
      }
    }
    // Port and escape variants really were exercised, not only identical URLs.
    expect(agreed).toBeGreaterThan(signedUrls.length);
  });

  it('JSON bodies through bodySHA256: validateRequestWithBody both ways', async () => {
    await fc.assert(
      fc.asyncProperty(fc.json({ maxDepth: 2 }), async (json) => {
        const url = withTwilioBodyHash('https://example.com/events?sink=1', json);
        const theirs = twilio.getExpectedTwilioSignature(token, url, {});
        expect(await accepts(scheme, { headers: { 'X-Twilio-Signature': theirs }, body: json, url })).toBe(
          true,
        );
        const ours =
          (await scheme.sign({ id: 'i', timestamp: 0, body: json, url }))['X-Twilio-Signature'] ?? '';
        expect(twilio.validateRequestWithBody(token, ours, url, json)).toBe(true);
        expect(twilio.validateRequestWithBody(token, ours, url, `${json} `)).toBe(false);
        expect(
          await accepts(scheme, { headers: { 'X-Twilio-Signature': ours }, body: `${json} `, url }),
        ).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it('HMAC-SHA256 (SharedKey) signatures, both ways', async () => {
    const params = { MessageSid: 'SM1', MessageStatus: 'delivered' };
    const url = 'https://example.com/status';
    const body = formBody(params);
    const theirs = twilio.getExpectedTwilioSignature(token, url, params, 'HMAC_SHA256');
    const settings = 'key=webhooks_sharedkey_1,algorithm=HMAC_SHA256';
    expect(twilio.getSignatureAlgorithm(settings)).toBe('HMAC_SHA256');
    expect(
      await accepts(scheme, {
        headers: { 'X-Twilio-Signature': theirs, 'X-Twilio-Webhooks-Signature-Settings': settings },
        body,
        url,
      }),
    ).toBe(true);
    expect(await accepts(sha256, { headers: { 'X-Twilio-Signature': theirs }, body, url })).toBe(true);
    const ours = await sha256.sign({ id: 'i', timestamp: 0, body, url });
    const algorithm = twilio.getSignatureAlgorithm(ours['X-Twilio-Webhooks-Signature-Settings']);
    expect(twilio.validateRequest(token, ours['X-Twilio-Signature'] ?? '', url, params, algorithm)).toBe(
      true,
    );
  });
});
