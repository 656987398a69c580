import { describe, expect, it } from 'vitest';
import type { SignatureConfig } from '../contract.js';
import { WebhookError } from '../errors.js';
import { hmacSchemeWeb, hmacVerifierWeb } from './hmac-scheme-web.js';
import type { SchemeVerifier, SignatureScheme } from './scheme.js';
import { standardWebhooksVerifierWeb, standardWebhooksWeb } from './standard-webhooks-web.js';

const HMAC: Extract<SignatureConfig, { kind: 'hmac' }> = {
  kind: 'hmac',
  header: 'X-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  prefix: 'sha256=',
  timestampHeader: 'X-Timestamp',
};
const NOW = 1_700_000_000;
const now = () => NOW * 1000;

async function outcome(scheme: SchemeVerifier, headers: Record<string, string>, body: string) {
  try {
    return await scheme.verify({ headers, body });
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookError);
    return (error as WebhookError).code;
  }
}

describe('the verifying halves of the Web schemes (what receiver parts build)', () => {
  it.each<[string, (o: { secret: string; now: () => number }) => SignatureScheme, typeof hmacVerifierWeb]>([
    ['Standard Webhooks', standardWebhooksWeb, (_c, o) => standardWebhooksVerifierWeb(o)],
    ['hmac', (o) => hmacSchemeWeb(HMAC, o), hmacVerifierWeb],
  ])('%s: no sign, and the same answers as the full scheme', async (_, full, half) => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const scheme = full({ secret, now });
    const verifier = half(HMAC, { secret, now });
    expect(verifier.name).toBe(scheme.name);
    expect('sign' in verifier).toBe(false);
    const body = '{"a":1}';
    const headers = await scheme.sign({ id: 'msg_1', timestamp: NOW, body });
    const cases: [Record<string, string>, string][] = [
      [headers, body],
      [headers, `${body} `],
      [{}, body],
      [Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace(/\d{10}/, '1')])), body],
    ];
    for (const [h, b] of cases) expect(await outcome(verifier, h, b)).toEqual(await outcome(scheme, h, b));
    expect(await outcome(verifier, headers, body)).toMatchObject({ timestamp: NOW });
  });

  it('checks the secret and the tolerance when built, as the full schemes do', () => {
    expect(() => standardWebhooksVerifierWeb({ secret: [] })).toThrow(/At least one secret/);
    expect(() => standardWebhooksVerifierWeb({ secret: 'whsec_AA', tolerance: -1 })).toThrow(/tolerance/);
    expect(() => hmacVerifierWeb(HMAC, { secret: '' })).toThrow(/non-empty/);
  });

  it('the hmac half trusts its config (checked by the generator), the full scheme checks it', () => {
    const odd = { ...HMAC, header: 'X Signature' };
    expect(() => hmacSchemeWeb(odd, { secret: 's' })).toThrow(/header must be a header name/);
    expect(() => hmacVerifierWeb(odd, { secret: 's' })).not.toThrow();
  });
});
