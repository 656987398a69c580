import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SignatureConfig } from '../contract.js';
import { WebhookError } from '../errors.js';
import { generateEd25519KeyPair } from './ed25519.js';
import { hmac } from './hmac.js';
import { hmacScheme } from './hmac-scheme.js';
import { signStandardWebhook, standardWebhookHeaders, verifyStandardWebhook } from './standard-webhooks.js';
import {
  createSignatureSchemeWeb,
  generateEd25519KeyPairWeb,
  generateStandardSecretWeb,
  hmacSchemeWeb,
  hmacWeb,
  signStandardWebhookWeb,
  standardWebhooksWeb,
  verifyStandardWebhookWeb,
} from './web.js';

const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

async function codeOf(run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (error instanceof WebhookError) return error.code;
    throw error;
  }
  return 'ok';
}

describe('web crypto path', () => {
  it('imports no node: module, directly or transitively', () => {
    const here = dirname(fileURLToPath(import.meta.url));
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(file, 'utf8');
      for (const match of source.matchAll(/^(?:import|export)[^'"]*from\s+'([^']+)'/gm)) {
        const spec = match[1] ?? '';
        expect(spec.startsWith('.'), `${file} imports ${spec}`).toBe(true);
        visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      }
    };
    visit(resolve(here, 'web.ts'));
    expect(seen.size).toBeGreaterThan(3);
  });

  it('reproduces the published vector', async () => {
    expect(await signStandardWebhookWeb(VECTOR)).toBe(VECTOR.signature);
    const headers = standardWebhookHeaders(VECTOR);
    expect(
      await verifyStandardWebhookWeb({
        headers,
        body: VECTOR.body,
        secret: VECTOR.secret,
        now: () => VECTOR.timestamp * 1000,
      }),
    ).toEqual({ id: VECTOR.id, timestamp: VECTOR.timestamp });
  });

  it('applies the same window, header and secret rules', async () => {
    const scheme = standardWebhooksWeb({ secret: VECTOR.secret, now: () => (VECTOR.timestamp + 301) * 1000 });
    const headers = standardWebhookHeaders(VECTOR);
    expect(await codeOf(() => scheme.verify({ headers, body: VECTOR.body }))).toBe('timestamp_too_old');
    expect(
      await codeOf(() => scheme.verify({ headers: { ...headers, 'webhook-timestamp': '1e9' }, body: '' })),
    ).toBe('malformed_header');
    expect(await codeOf(() => scheme.verify({ headers: {}, body: '' }))).toBe('missing_header');
    const current = standardWebhooksWeb({ secret: VECTOR.secret, now: () => VECTOR.timestamp * 1000 });
    expect(await codeOf(() => current.verify({ headers, body: {} as string }))).toBe('parsed_body');
    expect(await codeOf(() => standardWebhooksWeb({ secret: 'whsec_!' }))).toBe('invalid_secret');
    expect(generateStandardSecretWeb()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it('agrees with node:crypto on arbitrary inputs (HMAC, both directions)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[!-~]{1,30}$/),
        fc.integer({ min: 0, max: 4_000_000_000 }),
        fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string({ maxLength: 100 })),
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 64 }), { minLength: 1, maxLength: 3 }),
        async (id, timestamp, body, secrets) => {
          const node = signStandardWebhook({ id, timestamp, body, secret: secrets });
          const web = await signStandardWebhookWeb({ id, timestamp, body, secret: secrets });
          expect(web).toBe(node);
          const headers = {
            'webhook-id': id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': node,
          };
          const now = () => timestamp * 1000;
          const secret = secrets[secrets.length - 1] ?? new Uint8Array(1);
          expect(await verifyStandardWebhookWeb({ headers, body, secret, now })).toEqual(
            verifyStandardWebhook({ headers, body, secret, now }),
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it('agrees with node:crypto on rejections of garbage', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom('webhook-id', 'webhook-timestamp', 'webhook-signature', 'svix-signature'),
          fc.oneof(
            fc.string(),
            fc.constantFrom('1614265330', VECTOR.signature, 'v1,', VECTOR.id),
            fc.anything(),
          ),
        ),
        async (headers) => {
          const input = {
            headers,
            body: VECTOR.body,
            secret: VECTOR.secret,
            now: () => VECTOR.timestamp * 1000,
          };
          const nodeCode = await codeOf(() => verifyStandardWebhook(input));
          expect(await codeOf(() => verifyStandardWebhookWeb(input))).toBe(nodeCode);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('agrees with node:crypto on one-entry v1 headers near the valid one (node compares those in place)', async () => {
    const valid = standardWebhookHeaders(VECTOR);
    const signature = valid['webhook-signature'] ?? '';
    const near = fc.oneof(
      // The valid header with one character replaced (space, comma, tab and base64 characters).
      fc
        .tuple(
          fc.nat({ max: signature.length - 1 }),
          fc.constantFrom(' ', ',', '\t', 'A', '+', '/', '=', 'v'),
        )
        .map(([i, c]) => signature.slice(0, i) + c + signature.slice(i + 1)),
      // `v1,` and 44 arbitrary characters, or one too many / too few.
      fc.string({ minLength: 43, maxLength: 45 }).map((tail) => `v1,${tail}`),
      fc.constantFrom(
        signature,
        `${signature} `,
        ` ${signature}`,
        `${signature},`,
        `v1a${signature.slice(2)}`,
      ),
    );
    await fc.assert(
      fc.asyncProperty(near, async (value) => {
        const input = {
          headers: { ...valid, 'webhook-signature': value },
          body: VECTOR.body,
          secret: VECTOR.secret,
          now: () => VECTOR.timestamp * 1000,
        };
        const nodeCode = await codeOf(() => verifyStandardWebhook(input));
        expect(await codeOf(() => verifyStandardWebhookWeb(input))).toBe(nodeCode);
      }),
      { numRuns: 400 },
    );
  });

  it('rejects huge and hostile inputs with WebhookError only', async () => {
    const scheme = standardWebhooksWeb({ secret: VECTOR.secret, now: () => VECTOR.timestamp * 1000 });
    const base = standardWebhookHeaders(VECTOR);
    const cases: unknown[] = [
      { ...base, 'webhook-signature': 'v1,'.repeat(400_000) },
      { ...base, 'webhook-signature': `${'v1a,AAAA '.repeat(100_000)}` },
      { ...base, 'webhook-id': 'x'.repeat(2_000_000) },
      { ...base, 'webhook-timestamp': '9'.repeat(1_000_000) },
      {
        get() {
          throw new Error('hostile');
        },
      },
    ];
    for (const headers of cases) {
      expect(
        await codeOf(() => scheme.verify({ headers: headers as Record<string, string>, body: VECTOR.body })),
      ).not.toBe('ok');
    }
    const appended = new Headers(base);
    appended.delete('webhook-signature');
    appended.append('webhook-signature', 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=');
    appended.append('webhook-signature', VECTOR.signature);
    expect(await scheme.verify({ headers: appended, body: VECTOR.body })).toEqual({
      id: VECTOR.id,
      timestamp: VECTOR.timestamp,
    });
  });

  it('signs and verifies v1a across paths', async () => {
    const nodePair = generateEd25519KeyPair();
    const webPair = await generateEd25519KeyPairWeb();
    const input = { id: 'msg_1', timestamp: 1_700_000_000, body: new Uint8Array([1, 2, 0xff]) };
    const now = () => input.timestamp * 1000;
    for (const pair of [nodePair, webPair]) {
      const fromNode = signStandardWebhook({ ...input, secret: pair.secretKey });
      // Ed25519 is deterministic: both paths produce the same signature.
      expect(await signStandardWebhookWeb({ ...input, secret: pair.secretKey })).toBe(fromNode);
      const headers = {
        'webhook-id': input.id,
        'webhook-timestamp': String(input.timestamp),
        'webhook-signature': fromNode,
      };
      expect(
        await verifyStandardWebhookWeb({ headers, body: input.body, secret: pair.publicKey, now }),
      ).toEqual({
        id: input.id,
        timestamp: input.timestamp,
      });
      expect(verifyStandardWebhook({ headers, body: input.body, secret: pair.publicKey, now }).id).toBe(
        input.id,
      );
      expect(
        await codeOf(() =>
          verifyStandardWebhookWeb({
            headers,
            body: new Uint8Array([1, 2, 0xfe]),
            secret: pair.publicKey,
            now,
          }),
        ),
      ).toBe('invalid_signature');
    }
  });

  it('computes the same HMACs as node:crypto', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('sha1', 'sha256', 'sha512' as const),
        fc.uint8Array({ minLength: 1, maxLength: 100 }),
        fc.uint8Array({ maxLength: 200 }),
        fc.string({ maxLength: 20 }),
        async (algorithm, key, data, text) => {
          expect(await hmacWeb(algorithm, key, data, text)).toEqual(
            new Uint8Array(hmac(algorithm, key, data, text)),
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it('agrees with node:crypto on the hmac scheme', async () => {
    const configs: SignatureConfig[] = [
      {
        kind: 'hmac',
        header: 'X-Webhook-Signature',
        algorithm: 'sha256',
        encoding: 'hex',
        prefix: 'sha256=',
      },
      {
        kind: 'hmac',
        header: 'X-Sig',
        algorithm: 'sha512',
        encoding: 'base64',
        timestampHeader: 'X-Ts',
        idHeader: 'X-Id',
        signedContent: '{id}:{timestamp}:{body}!',
      },
    ];
    for (const config of configs) {
      if (config.kind !== 'hmac') continue;
      const options = { secret: ['old-secret', 'new-secret'], now: () => 1_700_000_000_000 };
      const node = hmacScheme(config, options);
      const web = hmacSchemeWeb(config, options);
      const input = { id: 'evt_1', timestamp: 1_700_000_000, body: new Uint8Array([0xc3, 0x28, 0x7b]) };
      const headers = await node.sign(input);
      expect(await web.sign(input)).toEqual(headers);
      expect(await web.verify({ headers, body: input.body })).toEqual(
        await node.verify({ headers, body: input.body }),
      );
      expect(await codeOf(() => web.verify({ headers, body: new Uint8Array([0]) }))).toBe(
        'invalid_signature',
      );
    }
  });

  it('resolves every config kind, provider presets included', async () => {
    expect(createSignatureSchemeWeb({ kind: 'standard-webhooks' }, { secret: VECTOR.secret }).name).toBe(
      'standard-webhooks',
    );
    expect(
      await createSignatureSchemeWeb({ kind: 'none' }, { secret: [] }).verify({ headers: {}, body: '' }),
    ).toEqual({});
    expect(createSignatureSchemeWeb({ kind: 'preset', preset: 'stripe' }, { secret: 'x' }).name).toBe(
      'stripe',
    );
    // Twilio's URL spellings need node:querystring: a clear configuration error, not a wrong answer.
    expect(
      await codeOf(() => createSignatureSchemeWeb({ kind: 'preset', preset: 'twilio' }, { secret: 'x' })),
    ).toBe('invalid_config');
  });
});
