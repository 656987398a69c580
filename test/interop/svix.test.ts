/**
 * Interop with the `svix` package (1.99.1, its `Webhook` class): Svix senders use `svix-*` headers,
 * gen-webhooks accepts them; our `svix`-prefixed and standard headers pass Svix's verifier.
 */
import fc from 'fast-check';
import { Webhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { createSignatureScheme } from '../../runtime/signing/resolve.js';
import {
  generateStandardSecret,
  standardWebhookHeaders,
  standardWebhooks,
  verifyStandardWebhook,
} from '../../runtime/signing/standard-webhooks.js';
import { standardWebhooksWeb } from '../../runtime/signing/web.js';

const nowSeconds = () => Math.floor(Date.now() / 1000);
const idArb = fc.stringMatching(/^msg_[A-Za-z0-9]{1,30}$/);
const payloadArb = fc.json({ maxDepth: 3 });

describe('svix signs, gen-webhooks verifies', () => {
  it('accepts svix-* headers from the Svix library (node and web paths)', async () => {
    const secret = generateStandardSecret();
    const svix = new Webhook(secret);
    const ours = standardWebhooks({ secret });
    const oursWeb = standardWebhooksWeb({ secret });
    await fc.assert(
      fc.asyncProperty(idArb, payloadArb, async (id, payload) => {
        const timestamp = nowSeconds();
        const headers = {
          'svix-id': id,
          'svix-timestamp': String(timestamp),
          'svix-signature': svix.sign(id, new Date(timestamp * 1000), payload),
        };
        expect(await ours.verify({ headers, body: payload })).toEqual({ id, timestamp });
        expect(await oursWeb.verify({ headers: new Headers(headers), body: payload })).toEqual({
          id,
          timestamp,
        });
      }),
      { numRuns: 100 },
    );
  });

  it('rejects a Svix signature made with another secret', () => {
    const timestamp = nowSeconds();
    const body = '{"type":"invoice.paid"}';
    const headers = {
      'svix-id': 'msg_x',
      'svix-timestamp': String(timestamp),
      'svix-signature': new Webhook(generateStandardSecret()).sign('msg_x', new Date(timestamp * 1000), body),
    };
    expect(() => verifyStandardWebhook({ headers, body, secret: generateStandardSecret() })).toThrow(
      /No signature/,
    );
  });
});

describe('gen-webhooks signs, svix verifies', () => {
  it('accepts our webhook-* and svix-* headers', async () => {
    const secret = generateStandardSecret();
    const svix = new Webhook(secret);
    const svixStyle = standardWebhooks({ secret, headerPrefix: 'svix' });
    const viaConfig = createSignatureScheme(
      { kind: 'standard-webhooks' },
      { secret: [generateStandardSecret(), secret] },
    );
    await fc.assert(
      fc.asyncProperty(idArb, payloadArb, async (id, payload) => {
        const timestamp = nowSeconds();
        const plain = standardWebhookHeaders({ id, timestamp, body: payload, secret });
        const prefixed = await svixStyle.sign({ id, timestamp, body: payload });
        expect(Object.keys(prefixed).sort()).toEqual(['svix-id', 'svix-signature', 'svix-timestamp']);
        const rotated = await viaConfig.sign({ id, timestamp, body: Buffer.from(payload) });
        for (const headers of [plain, prefixed, rotated]) {
          expect(svix.verify(payload, headers)).toEqual(JSON.parse(payload));
        }
      }),
      { numRuns: 100 },
    );
  });

  it('Svix rejects our signature over an altered body', () => {
    const secret = generateStandardSecret();
    const headers = standardWebhookHeaders({ id: 'msg_y', timestamp: nowSeconds(), body: '{"n":1}', secret });
    expect(() => new Webhook(secret).verify('{"n":10}', headers)).toThrow();
  });
});
