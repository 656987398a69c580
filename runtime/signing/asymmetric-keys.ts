/**
 * Keys of the asymmetric scheme (`SignatureConfig` kind `asymmetric`) on Web Crypto. A key is read and
 * checked against the contract's algorithm when the scheme is built (`invalid_key` at once, naming what
 * was expected), and imported on first use.
 *
 * Exports:
 * - `PublicKeyInput` / `PrivateKeyInput` — what users hand in: PEM, base64 DER, a JWK (object or JSON
 *   text), DER bytes; Ed25519 also as the 32 raw key bytes (or a 32-byte seed), hex or base64
 * - `publicKeyImporter(algorithm, key)`, `privateKeyImporter(algorithm, key)` → a lazy `CryptoKey`
 * - `webAlgorithm(algorithm)` → the Web Crypto import and sign/verify parameters, and the ECDSA size
 */
import type { AsymmetricAlgorithm } from '../contract.js';
import { WebhookError } from '../errors.js';
import { derFromText } from '../presets/web-crypto.js';
import { concatBytes, decodeCanonicalHex } from './encoding.js';
import type { PublicKeyInput } from './scheme.js';
import { ED25519_PKCS8_PREFIX, ED25519_SPKI_PREFIX } from './standard-webhooks-core.js';
import { lazy, subtle, view } from './web-crypto.js';

export type { PublicKeyInput } from './scheme.js';
/** A private key: PEM (`-----BEGIN PRIVATE KEY-----`), base64 PKCS#8 DER, a JWK with `d`, or DER bytes. */
export type PrivateKeyInput = string | Uint8Array | JsonWebKey;

// Web Crypto parameters typed by their shape alone, so the file needs neither lib.dom nor @types/node.
interface AlgorithmParams {
  readonly name: string;
  readonly [member: string]: unknown;
}

interface WebAlgorithm {
  readonly import: AlgorithmParams;
  readonly sign: AlgorithmParams;
  /** JWK `kty` / `crv` the key must have. */
  readonly kty: 'OKP' | 'EC' | 'RSA';
  readonly crv?: string;
  /** Bytes of one ECDSA coordinate (raw signatures are twice this). */
  readonly ecSize?: number;
  /** DER of the SPKI / PKCS#8 AlgorithmIdentifier OIDs that must appear in the key. */
  readonly oids: readonly (readonly number[])[];
}

const ED25519_OID = [0x06, 0x03, 0x2b, 0x65, 0x70];
const EC_OID = [0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const RSA_OID = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const CURVES = {
  'P-256': { size: 32, oid: [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07] },
  'P-384': { size: 48, oid: [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22] },
  'P-521': { size: 66, oid: [0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23] },
} as const;
const SHA = { sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' } as const;
const EC_CURVE = { sha256: 'P-256', sha384: 'P-384', sha512: 'P-521' } as const;

export function webAlgorithm(algorithm: AsymmetricAlgorithm): WebAlgorithm {
  if (algorithm === 'ed25519') {
    return {
      import: { name: 'Ed25519' },
      sign: { name: 'Ed25519' },
      kty: 'OKP',
      crv: 'Ed25519',
      oids: [ED25519_OID],
    };
  }
  const [family, digest] = algorithm.split('-') as [string, keyof typeof SHA];
  if (!Object.hasOwn(SHA, digest ?? '') || (family !== 'ecdsa' && family !== 'rsa')) {
    throw new WebhookError(
      'invalid_config',
      `asymmetric signature config: algorithm ${JSON.stringify(algorithm)} is not one of ed25519, ecdsa-sha256, ecdsa-sha384, ecdsa-sha512, rsa-sha256, rsa-sha384, rsa-sha512`,
    );
  }
  const hash = SHA[digest];
  if (family === 'rsa') {
    const name = 'RSASSA-PKCS1-v1_5';
    return { import: { name, hash }, sign: { name }, kty: 'RSA', oids: [RSA_OID] };
  }
  const namedCurve = EC_CURVE[digest];
  const curve = CURVES[namedCurve];
  return {
    import: { name: 'ECDSA', namedCurve },
    sign: { name: 'ECDSA', hash },
    kty: 'EC',
    crv: namedCurve,
    ecSize: curve.size,
    oids: [EC_OID, curve.oid],
  };
}

type Parsed =
  | { readonly format: 'spki' | 'pkcs8' | 'raw'; readonly data: Uint8Array }
  | { readonly format: 'jwk'; readonly data: JsonWebKey };

function contains(haystack: Uint8Array, needle: readonly number[]): boolean {
  outer: for (let i = 0; i + needle.length <= Math.min(haystack.length, 64); i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

function keyError(algorithm: AsymmetricAlgorithm, kind: 'public' | 'private', why: string): WebhookError {
  const form =
    kind === 'public'
      ? 'a PEM "PUBLIC KEY", base64 SPKI DER, a JWK'
      : 'a PEM "PRIVATE KEY", base64 PKCS#8 DER, a JWK with "d"';
  const raw = algorithm === 'ed25519' ? `, or the 32 raw ${kind === 'public' ? 'key' : 'seed'} bytes` : '';
  return new WebhookError('invalid_key', `The ${algorithm} ${kind} key ${why}; expected ${form}${raw}`, {
    details: { algorithm, expected: `${form}${raw}` },
  });
}

function parse(algorithm: AsymmetricAlgorithm, kind: 'public' | 'private', key: unknown): Parsed {
  const web = webAlgorithm(algorithm);
  const der = kind === 'public' ? 'spki' : 'pkcs8';
  let bytes: Uint8Array | undefined;
  let jwk: JsonWebKey | undefined;
  if (typeof key === 'string') {
    const text = key.trim();
    if (text.startsWith('{')) {
      try {
        jwk = JSON.parse(text) as JsonWebKey;
      } catch {
        throw keyError(algorithm, kind, 'is not valid JSON');
      }
    } else if (text.startsWith('-----BEGIN')) {
      const label = kind === 'public' ? 'PUBLIC KEY' : 'PRIVATE KEY';
      if (!text.startsWith(`-----BEGIN ${label}-----`)) {
        throw keyError(algorithm, kind, `is a PEM block other than "${label}"`);
      }
      bytes = derFromText(text);
    } else {
      bytes = (/^[0-9a-f]+$/.test(text) ? decodeCanonicalHex(text) : undefined) ?? derFromText(text);
    }
    if (bytes === undefined && jwk === undefined)
      throw keyError(algorithm, kind, 'is neither PEM, base64 nor hex');
  } else if (key instanceof Uint8Array) {
    bytes = key;
  } else if (typeof key === 'object' && key !== null) {
    jwk = key as JsonWebKey;
  } else {
    throw keyError(algorithm, kind, 'is missing');
  }
  if (jwk !== undefined) {
    if (
      typeof jwk !== 'object' ||
      jwk === null ||
      jwk.kty !== web.kty ||
      (web.crv !== undefined && jwk.crv !== web.crv)
    ) {
      throw keyError(
        algorithm,
        kind,
        `is a JWK of another type (needs kty ${web.kty}${web.crv ? `, crv ${web.crv}` : ''})`,
      );
    }
    if (kind === 'private' && typeof jwk.d !== 'string')
      throw keyError(algorithm, kind, 'is a JWK without "d"');
    // Only the members Web Crypto reads for this key type: a JWK may carry `alg`/`use` that disagree.
    const names =
      web.kty === 'RSA' ? ['kty', 'n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi'] : ['kty', 'crv', 'x', 'y', 'd'];
    const out: Record<string, unknown> = {};
    for (const name of names) {
      const value = (jwk as Record<string, unknown>)[name];
      if (value !== undefined && (kind === 'private' || !['d', 'p', 'q', 'dp', 'dq', 'qi'].includes(name)))
        out[name] = value;
    }
    return { format: 'jwk', data: out as JsonWebKey };
  }
  const data = bytes as Uint8Array;
  if (algorithm === 'ed25519' && data.length === 32) {
    return kind === 'public'
      ? { format: 'raw', data }
      : { format: 'pkcs8', data: concatBytes(ED25519_PKCS8_PREFIX, data) };
  }
  if (data[0] !== 0x30 || !web.oids.every((oid) => contains(data, oid))) {
    const what = web.kty === 'EC' ? `an ${web.crv} key` : web.kty === 'RSA' ? 'an RSA key' : 'an Ed25519 key';
    throw keyError(algorithm, kind, `is not ${what} in ${der.toUpperCase()} DER`);
  }
  if (kind === 'public' && algorithm === 'ed25519' && data.length === ED25519_SPKI_PREFIX.length + 32) {
    return { format: 'raw', data: data.subarray(ED25519_SPKI_PREFIX.length) };
  }
  return { format: der, data };
}

async function importParsed(
  algorithm: AsymmetricAlgorithm,
  kind: 'public' | 'private',
  parsed: Parsed,
): Promise<CryptoKey> {
  const web = webAlgorithm(algorithm);
  const usages: Array<'sign' | 'verify'> = kind === 'public' ? ['verify'] : ['sign'];
  try {
    return parsed.format === 'jwk'
      ? await subtle().importKey('jwk', parsed.data, web.import, false, usages)
      : await subtle().importKey(parsed.format, view(parsed.data), web.import, false, usages);
  } catch (cause) {
    throw new WebhookError('invalid_key', `The ${algorithm} ${kind} key could not be imported`, {
      cause,
      details: { algorithm },
    });
  }
}

export function publicKeyImporter(
  algorithm: AsymmetricAlgorithm,
  key: PublicKeyInput,
): () => Promise<CryptoKey> {
  const parsed = parse(algorithm, 'public', key);
  return lazy(() => importParsed(algorithm, 'public', parsed));
}

export function privateKeyImporter(
  algorithm: AsymmetricAlgorithm,
  key: PrivateKeyInput,
): () => Promise<CryptoKey> {
  const parsed = parse(algorithm, 'private', key);
  return lazy(() => importParsed(algorithm, 'private', parsed));
}
