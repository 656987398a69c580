/**
 * Interop with the reference `standardwebhooks` package (1.1.1): it signs, we verify; we sign, it
 * verifies. It checks timestamps against the real clock, so these tests sign "now".
 */
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateEd25519KeyPair } from '../../runtime/signing/ed25519.js';
import {
  generateStandardSecret,
  standardWebhookHeaders,
  standardWebhooks,
  verifyStandardWebhook,
} from '../../runtime/signing/standard-webhooks.js';
import { verifyStandardWebhookWeb } from '../../runtime/signing/web.js';

const nowSeconds = () => Math.floor(Date.now() / 1000);
const idArb = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/);
const payloadArb = fc.json({ maxDepth: 3 });

describe('standardwebhooks signs, gen-webhooks verifies', () => {
  it('accepts arbitrary JSON payloads and ids (node and web paths)', async () => {
    const secret = generateStandardSecret();
    const theirs = new Webhook(secret);
    await fc.assert(
      fc.asyncProperty(idArb, payloadArb, async (id, payload) => {
        const timestamp = nowSeconds();
        const headers = {
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': theirs.sign(id, new Date(timestamp * 1000), payload),
        };
        expect(verifyStandardWebhook({ headers, body: payload, secret })).toEqual({ id, timestamp });
        expect(await verifyStandardWebhookWeb({ headers, body: Buffer.from(payload), secret })).toEqual({
          id,
          timestamp,
        });
      }),
      { numRuns: 100 },
    );
  });

  it('shares the secret formats: whsec_, bare base64 and raw bytes', () => {
    const secret = generateStandardSecret(24);
    const bare = secret.slice('whsec_'.length);
    const raw = new Uint8Array(Buffer.from(bare, 'base64'));
    const timestamp = nowSeconds();
    const body = '{"hello":"world"}';
    for (const theirs of [new Webhook(secret), new Webhook(bare), new Webhook(raw, { format: 'raw' })]) {
      const headers = {
        'webhook-id': 'msg_1',
        'webhook-timestamp': String(timestamp),
        'webhook-signature': theirs.sign('msg_1', new Date(timestamp * 1000), body),
      };
      for (const ours of [secret, bare, raw]) {
        expect(verifyStandardWebhook({ headers, body, secret: ours }).id).toBe('msg_1');
      }
    }
  });

  it('rejects their signature over a different body or with another secret', () => {
    const secret = generateStandardSecret();
    const timestamp = nowSeconds();
    const headers = {
      'webhook-id': 'msg_2',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': new Webhook(secret).sign('msg_2', new Date(timestamp * 1000), '{"a":1}'),
    };
    expect(() => verifyStandardWebhook({ headers, body: '{"a":2}', secret })).toThrow(/No signature/);
    expect(() =>
      verifyStandardWebhook({ headers, body: '{"a":1}', secret: generateStandardSecret() }),
    ).toThrow(/No signature/);
  });
});

describe('gen-webhooks signs, standardwebhooks verifies', () => {
  it('accepts arbitrary JSON payloads and ids', () => {
    const secret = generateStandardSecret();
    const theirs = new Webhook(secret);
    fc.assert(
      fc.property(idArb, payloadArb, (id, payload) => {
        const headers = standardWebhookHeaders({ id, timestamp: nowSeconds(), body: payload, secret });
        expect(theirs.verify(payload, headers)).toEqual(JSON.parse(payload));
      }),
      { numRuns: 100 },
    );
  });

  it('accepts our rotation headers (several v1, plus v1a it does not know)', async () => {
    const current = generateStandardSecret();
    const previous = generateStandardSecret();
    const scheme = standardWebhooks({ secret: [previous, generateEd25519KeyPair().secretKey, current] });
    const body = Buffer.from('{"rotated":true}');
    const headers = await scheme.sign({ id: 'msg_rot', timestamp: nowSeconds(), body });
    expect(headers['webhook-signature']?.split(' ').map((s) => s.split(',')[0])).toEqual(['v1', 'v1a', 'v1']);
    for (const secret of [current, previous]) {
      expect(new Webhook(secret).verify(body.toString(), headers)).toEqual({ rotated: true });
    }
    expect(() => new Webhook(generateStandardSecret()).verify(body.toString(), headers)).toThrow();
  });

  it('rejects our signature when the body changed', () => {
    const secret = generateStandardSecret();
    const headers = standardWebhookHeaders({ id: 'msg_3', timestamp: nowSeconds(), body: '{"a":1}', secret });
    expect(() => new Webhook(secret).verify('{"a":2}', headers)).toThrow();
  });
});
