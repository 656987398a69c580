/**
 * The asymmetric scheme against node:crypto: deliveries signed by node:crypto verify (PEM, JWK, raw
 * Ed25519 keys; DER and raw ECDSA signatures), our signatures verify under node:crypto, and any
 * change to the body, the timestamp or the signature fails (fast-check).
 */
import { generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AsymmetricAlgorithm } from '../contract.js';
import { WebhookError } from '../errors.js';
import { type AsymmetricConfig, asymmetricScheme } from './asymmetric-scheme.js';
import { createSignatureScheme } from './resolve.js';
import { createSignatureSchemeWeb } from './resolve-web.js';

interface Pair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** node:crypto's digest name (null for Ed25519). */
  readonly digest: string | null;
}

function pairFor(algorithm: AsymmetricAlgorithm): Pair {
  if (algorithm === 'ed25519') return { ...generateKeyPairSync('ed25519'), digest: null };
  const [family, digest] = algorithm.split('-') as ['ecdsa' | 'rsa', string];
  if (family === 'rsa') return { ...generateKeyPairSync('rsa', { modulusLength: 2048 }), digest };
  const namedCurve = { sha256: 'prime256v1', sha384: 'secp384r1', sha512: 'secp521r1' }[digest] as string;
  return { ...generateKeyPairSync('ec', { namedCurve }), digest };
}

const ALGORITHMS: readonly AsymmetricAlgorithm[] = [
  'ed25519',
  'ecdsa-sha256',
  'ecdsa-sha384',
  'ecdsa-sha512',
  'rsa-sha256',
  'rsa-sha384',
  'rsa-sha512',
];
const PAIRS = new Map(ALGORITHMS.map((a) => [a, pairFor(a)]));
const NOW = 1_767_225_600; // 2026-01-01T00:00:00Z

const configFor = (algorithm: AsymmetricAlgorithm): AsymmetricConfig => ({
  kind: 'asymmetric',
  header: 'X-Signature',
  algorithm,
  encoding: 'base64',
  prefix: 'v1=',
  timestampHeader: 'X-Timestamp',
  signedContent: '{timestamp}.{body}',
});

/** A delivery signed by node:crypto alone. */
function nodeSigned(
  algorithm: AsymmetricAlgorithm,
  body: string,
  timestamp: number,
  dsaEncoding: 'der' | 'ieee-p1363' = 'der',
): Record<string, string> {
  const pair = PAIRS.get(algorithm) as Pair;
  const key = algorithm.startsWith('ecdsa') ? { key: pair.privateKey, dsaEncoding } : pair.privateKey;
  const signature = sign(pair.digest, Buffer.from(`${timestamp}.${body}`), key);
  return { 'x-signature': `v1=${signature.toString('base64')}`, 'x-timestamp': String(timestamp) };
}

const pem = (key: KeyObject) => key.export({ format: 'pem', type: 'spki' }).toString();
const options = (
  algorithm: AsymmetricAlgorithm,
  publicKey: unknown = pem(PAIRS.get(algorithm)?.publicKey as KeyObject),
) => ({
  publicKey: publicKey as string,
  now: () => NOW * 1000,
});

async function code(run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (error instanceof WebhookError) return error.code;
    throw error;
  }
  return 'ok';
}

describe.each(ALGORITHMS)('asymmetric %s', (algorithm) => {
  const pair = PAIRS.get(algorithm) as Pair;
  const scheme = asymmetricScheme(configFor(algorithm), options(algorithm));

  it('verifies a node:crypto signature with a PEM and a JWK public key', async () => {
    const body = '{"type":"order.paid","id":"o_1"}';
    const headers = nodeSigned(algorithm, body, NOW);
    expect(await scheme.verify({ headers, body })).toEqual({ timestamp: NOW });
    const jwk = pair.publicKey.export({ format: 'jwk' });
    const fromJwk = asymmetricScheme(configFor(algorithm), options(algorithm, jwk));
    expect(await fromJwk.verify({ headers, body })).toEqual({ timestamp: NOW });
    // The same JWK as JSON text (an environment variable), through the runtime's resolver.
    const resolved = createSignatureSchemeWeb(configFor(algorithm), {
      secret: [],
      ...options(algorithm, JSON.stringify(jwk)),
    });
    expect(await resolved.verify({ headers, body })).toEqual({ timestamp: NOW });
  });

  it('signs with the private key (the sender secret) so that node:crypto verifies', async () => {
    const privatePem = pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const signer = createSignatureScheme(configFor(algorithm), { secret: privatePem });
    const body = '{"type":"order.paid"}';
    const headers = await signer.sign({ id: 'msg_1', timestamp: NOW, body });
    expect(headers['X-Timestamp']).toBe(String(NOW));
    const value = headers['X-Signature'] as string;
    expect(value.startsWith('v1=')).toBe(true);
    const signature = Buffer.from(value.slice(3), 'base64');
    expect(verify(pair.digest, Buffer.from(`${NOW}.${body}`), pair.publicKey, signature)).toBe(true);
    expect(verify(pair.digest, Buffer.from(`${NOW}.${body} `), pair.publicKey, signature)).toBe(false);
  });

  it('refuses any change to the body, the timestamp or the signature (property)', async () => {
    const body = '{"type":"order.paid","amount":100}';
    const headers = nodeSigned(algorithm, body, NOW);
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 200 }),
        fc.nat(),
        async (extra, skew, position) => {
          // A different body.
          const tampered = body.slice(0, position % body.length) + extra + body.slice(position % body.length);
          if (tampered !== body)
            expect(await code(() => scheme.verify({ headers, body: tampered }))).toBe('invalid_signature');
          // A different timestamp, still inside the window.
          const moved = { ...headers, 'x-timestamp': String(NOW - skew) };
          expect(await code(() => scheme.verify({ headers: moved, body }))).toBe('invalid_signature');
          // One signature byte changed.
          const bytes = Buffer.from((headers['x-signature'] as string).slice(3), 'base64');
          const at = position % bytes.length;
          bytes[at] = (bytes[at] as number) ^ (1 + (skew % 255));
          const flipped = { ...headers, 'x-signature': `v1=${bytes.toString('base64')}` };
          expect(['invalid_signature', 'malformed_header']).toContain(
            await code(() => scheme.verify({ headers: flipped, body })),
          );
        },
      ),
      { numRuns: algorithm.startsWith('rsa') ? 15 : 30 },
    );
  });

  it('refuses a delivery outside the window and one without the header', async () => {
    const body = '{}';
    expect(await code(() => scheme.verify({ headers: nodeSigned(algorithm, body, NOW - 3600), body }))).toBe(
      'timestamp_too_old',
    );
    expect(await code(() => scheme.verify({ headers: { 'x-timestamp': String(NOW) }, body }))).toBe(
      'missing_header',
    );
  });
});

describe('asymmetric keys and signature encodings', () => {
  it('takes ECDSA signatures raw (r‖s) as well as DER', async () => {
    for (const algorithm of ['ecdsa-sha256', 'ecdsa-sha512'] as const) {
      const scheme = asymmetricScheme(configFor(algorithm), options(algorithm));
      const body = '{"a":1}';
      expect(await scheme.verify({ headers: nodeSigned(algorithm, body, NOW, 'ieee-p1363'), body })).toEqual({
        timestamp: NOW,
      });
    }
  });

  it('reports the timestamp only when the signature covers it', async () => {
    const pair = PAIRS.get('ed25519') as Pair;
    const config: AsymmetricConfig = {
      kind: 'asymmetric',
      header: 'X-Sig',
      algorithm: 'ed25519',
      encoding: 'base64',
      timestampHeader: 'X-Ts',
    };
    const body = '{"c":3}';
    const headers = {
      'x-sig': sign(null, Buffer.from(body), pair.privateKey).toString('base64'),
      'x-ts': String(NOW),
    };
    const scheme = asymmetricScheme(config, options('ed25519'));
    expect(await scheme.verify({ headers, body })).toEqual({});
  });

  it('takes an Ed25519 key as its 32 raw bytes (hex or base64) and hex signatures', async () => {
    const pair = PAIRS.get('ed25519') as Pair;
    const raw = Buffer.from(pair.publicKey.export({ format: 'jwk' }).x as string, 'base64url');
    const config: AsymmetricConfig = {
      kind: 'asymmetric',
      header: 'X-Sig',
      algorithm: 'ed25519',
      encoding: 'hex',
    };
    const body = '{"b":2}';
    const headers = { 'x-sig': sign(null, Buffer.from(body), pair.privateKey).toString('hex') };
    for (const key of [raw.toString('hex'), raw.toString('base64'), new Uint8Array(raw)]) {
      expect(await asymmetricScheme(config, { publicKey: key }).verify({ headers, body })).toEqual({});
    }
  });

  it('is invalid_key at once for a malformed key or a key of another algorithm', async () => {
    const p256 = pem(PAIRS.get('ecdsa-sha256')?.publicKey as KeyObject);
    const rsa = pem(PAIRS.get('rsa-sha256')?.publicKey as KeyObject);
    const cases: [AsymmetricAlgorithm, unknown][] = [
      ['ed25519', 'not a key'],
      ['ed25519', p256],
      ['ecdsa-sha256', rsa],
      ['ecdsa-sha384', p256], // right family, wrong curve
      ['rsa-sha256', p256],
      ['rsa-sha256', '{"kty":"EC"'],
      ['ecdsa-sha256', { kty: 'RSA', n: 'x', e: 'AQAB' }],
      ['ecdsa-sha256', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----'],
    ];
    for (const [algorithm, key] of cases) {
      let error: unknown;
      try {
        asymmetricScheme(configFor(algorithm), { publicKey: key as string });
      } catch (e) {
        error = e;
      }
      expect(error, `${algorithm} ${String(key).slice(0, 30)}`).toBeInstanceOf(WebhookError);
      expect((error as WebhookError).code).toBe('invalid_key');
      expect((error as WebhookError).message).toContain('expected');
    }
  });

  it('says what is missing: verifying needs publicKey, signing needs the private key', async () => {
    const scheme = asymmetricScheme(configFor('ed25519'), {});
    expect(await code(() => scheme.verify({ headers: {}, body: '' }))).toBe('invalid_config');
    expect(await code(() => scheme.sign({ id: 'm', timestamp: NOW, body: '' }))).toBe('invalid_config');
  });
});
