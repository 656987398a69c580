/**
 * Web Crypto (`globalThis.crypto.subtle`) implementations for Workers, Deno, Bun and browsers: the same
 * schemes, inputs and errors as the node:crypto path, but async. This module imports no `node:*`
 * module (directly or through its imports), so it bundles for any runtime.
 *
 * Exports:
 * - `hmacWeb(algorithm, key, ...parts)` → `Promise<Uint8Array>`
 * - `signStandardWebhookWeb(input)`, `verifyStandardWebhookWeb(input)`, `standardWebhooksWeb(options)`
 * - `hmacSchemeWeb(config, options)`, `createSignatureSchemeWeb(config, options)` (no presets)
 * - `generateStandardSecretWeb()`, `generateEd25519KeyPairWeb()`
 */
import { toBytes } from '../bytes.js';
import type { SignatureConfig } from '../contract.js';
import { WebhookError } from '../errors.js';
import { checkTimestamp, checkTolerance, parseUnixSeconds, type Tolerance } from '../timestamp.js';
import { concatBytes, constantTimeEqual, decodeBase64, encodeBase64, utf8 } from './encoding.js';
import {
  compileHmacConfig,
  formatSignatures,
  type HmacConfig,
  readHmacRequest,
  signedHeaders,
  signedParts,
  textSecretBytes,
} from './hmac-scheme-core.js';
import type { RawBody, SchemeOptions, Secret, SignatureScheme, VerifiedDelivery } from './scheme.js';
import {
  asVerificationError,
  checkSignInput,
  createKeyCache,
  decodeStandardKey,
  delivered,
  ED25519_PKCS8_PREFIX,
  type HeaderPrefix,
  headerNamesFor,
  noMatch,
  parseSignatureList,
  readStandardHeaders,
  type StandardSignInput,
  type StandardVerifyInput,
  secretList,
  signedPrefix,
} from './standard-webhooks-core.js';

type HmacAlgorithm = 'sha256' | 'sha1' | 'sha512';
const HASH: Readonly<Record<HmacAlgorithm, string>> = { sha1: 'SHA-1', sha256: 'SHA-256', sha512: 'SHA-512' };

function subtle(): SubtleCrypto {
  const value = globalThis.crypto?.subtle;
  if (value === undefined)
    throw new WebhookError('invalid_config', 'Web Crypto (crypto.subtle) is not available');
  return value;
}

/** Web Crypto wants ArrayBuffer-backed views; copy only views over something else. */
function view(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}

function importHmacKey(algorithm: HmacAlgorithm, key: Uint8Array): Promise<CryptoKey> {
  return subtle().importKey('raw', view(key), { name: 'HMAC', hash: HASH[algorithm] }, false, ['sign']);
}

async function macWith(key: CryptoKey, data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle().sign('HMAC', key, view(data)));
}

function joinParts(parts: ReadonlyArray<Uint8Array | string>): Uint8Array {
  return concatBytes(...parts.map((part) => (typeof part === 'string' ? utf8(part) : part)));
}

export async function hmacWeb(
  algorithm: HmacAlgorithm,
  key: Uint8Array,
  ...parts: ReadonlyArray<Uint8Array | string>
): Promise<Uint8Array> {
  if (!Object.hasOwn(HASH, algorithm))
    throw new WebhookError('invalid_argument', `Unknown HMAC ${algorithm}`);
  return macWith(await importHmacKey(algorithm, key), joinParts(parts));
}

type WebKey =
  | { readonly kind: 'hmac'; readonly key: () => Promise<CryptoKey> }
  | {
      readonly kind: 'ed25519';
      readonly publicKey: () => Promise<CryptoKey>;
      readonly privateKey?: () => Promise<CryptoKey>;
    };

/** Runs `make` once, on first use: scheme constructors stay synchronous. */
function lazy<T>(make: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => {
    promise ??= make();
    return promise;
  };
}

async function importEd25519(seed: Uint8Array, publicKey: Uint8Array | undefined) {
  const s = subtle();
  try {
    const privateKey = await s.importKey(
      'pkcs8',
      view(concatBytes(ED25519_PKCS8_PREFIX, seed)),
      'Ed25519',
      true,
      ['sign'],
    );
    const jwk = await s.exportKey('jwk', privateKey);
    const derived = decodeBase64Url(jwk.x ?? '');
    if (derived === undefined || derived.length !== 32) throw new Error('no public key in JWK');
    if (publicKey !== undefined && !constantTimeEqual(publicKey, derived)) {
      throw new WebhookError('invalid_key', 'whsk_ key pair: the public half does not match the seed');
    }
    return { privateKey, publicKey: await importEd25519Public(derived) };
  } catch (cause) {
    if (cause instanceof WebhookError) throw cause;
    throw new WebhookError('invalid_key', 'Invalid Ed25519 signing key', { cause });
  }
}

async function importEd25519Public(raw: Uint8Array): Promise<CryptoKey> {
  try {
    return await subtle().importKey('raw', view(raw), 'Ed25519', true, ['verify']);
  } catch (cause) {
    throw new WebhookError('invalid_key', 'Invalid Ed25519 public key', { cause });
  }
}

function decodeBase64Url(text: string): Uint8Array | undefined {
  const base64 = text.replaceAll('-', '+').replaceAll('_', '/');
  return decodeBase64(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
}

const cachedKey = createKeyCache<WebKey>();

function prepareKey(secret: Secret): WebKey {
  return cachedKey(secret, decodeKey);
}

function decodeKey(secret: Secret): WebKey {
  const decoded = decodeStandardKey(secret);
  let key: WebKey;
  if (decoded.kind === 'hmac') {
    const bytes = decoded.bytes;
    key = { kind: 'hmac', key: lazy(() => importHmacKey('sha256', bytes)) };
  } else if (decoded.kind === 'ed25519-public') {
    const raw = decoded.publicKey;
    key = { kind: 'ed25519', publicKey: lazy(() => importEd25519Public(raw)) };
  } else {
    const pair = lazy(() => importEd25519(decoded.seed, decoded.publicKey));
    key = {
      kind: 'ed25519',
      publicKey: async () => (await pair()).publicKey,
      privateKey: async () => (await pair()).privateKey,
    };
  }
  return key;
}

function prepareKeys(secret: Secret | readonly Secret[] | undefined): readonly WebKey[] {
  return secretList(secret).map(prepareKey);
}

async function signWithKeys(keys: readonly WebKey[], id: string, timestamp: number, body: RawBody) {
  checkSignInput(id, timestamp);
  const content = concatBytes(utf8(signedPrefix(id, timestamp)), toBytes(body));
  const out: string[] = [];
  for (const key of keys) {
    if (key.kind === 'hmac') {
      out.push(`v1,${encodeBase64(await macWith(await key.key(), content))}`);
    } else if (key.privateKey !== undefined) {
      const signature = await subtle().sign('Ed25519', await key.privateKey(), view(content));
      out.push(`v1a,${encodeBase64(new Uint8Array(signature))}`);
    }
  }
  if (out.length === 0)
    throw new WebhookError('invalid_key', 'No signing key: whpk_ public keys can only verify');
  return out.join(' ');
}

async function verifyWithKeys(
  keys: readonly WebKey[],
  headers: unknown,
  body: RawBody,
  tolerance: Tolerance | undefined,
  now: (() => number) | undefined,
): Promise<VerifiedDelivery> {
  const values = readStandardHeaders(headers);
  const timestamp = parseUnixSeconds(values.timestamp, values.names.timestamp);
  checkTimestamp(timestamp, { tolerance, now }, values.names.timestamp);
  const list = parseSignatureList(values.signature, values.names.signature);
  const content = concatBytes(utf8(signedPrefix(values.id, values.timestamp)), toBytes(body));
  for (const key of keys) {
    if (key.kind === 'hmac') {
      if (list.v1.length === 0) continue;
      const expected = await macWith(await key.key(), content);
      for (const signature of list.v1) {
        const bytes = decodeBase64(signature);
        if (bytes !== undefined && constantTimeEqual(expected, bytes)) return { id: values.id, timestamp };
      }
    } else {
      for (const signature of list.v1a) {
        const bytes = decodeBase64(signature);
        if (bytes === undefined) continue;
        if (await subtle().verify('Ed25519', await key.publicKey(), view(bytes), view(content))) {
          return { id: values.id, timestamp };
        }
      }
    }
  }
  throw noMatch(values.names.signature);
}

export type StandardSignInputWeb = StandardSignInput;
export type StandardVerifyInputWeb = StandardVerifyInput;

export async function signStandardWebhookWeb(input: StandardSignInputWeb): Promise<string> {
  return signWithKeys(prepareKeys(input.secret), input.id, input.timestamp, input.body);
}

export async function verifyStandardWebhookWeb(input: StandardVerifyInputWeb): Promise<VerifiedDelivery> {
  try {
    return await verifyWithKeys(
      prepareKeys(input.secret),
      input.headers,
      input.body,
      input.tolerance,
      input.now,
    );
  } catch (error) {
    throw asVerificationError(error);
  }
}

export function standardWebhooksWeb(
  options: SchemeOptions & { readonly headerPrefix?: HeaderPrefix },
): SignatureScheme {
  const keys = prepareKeys(options.secret);
  const names = headerNamesFor(options.headerPrefix);
  const { tolerance, now } = options;
  checkTolerance(tolerance);
  return {
    name: 'standard-webhooks',
    async sign(input) {
      return {
        [names.id]: input.id,
        [names.timestamp]: String(input.timestamp),
        [names.signature]: await signWithKeys(keys, input.id, input.timestamp, input.body),
      };
    },
    async verify(input) {
      try {
        return await verifyWithKeys(keys, input.headers, input.body, tolerance, now);
      } catch (error) {
        throw asVerificationError(error);
      }
    },
  };
}

export function hmacSchemeWeb(config: HmacConfig, options: SchemeOptions): SignatureScheme {
  const compiled = compileHmacConfig(config);
  const keys = secretList(options.secret).map((secret) => {
    const bytes = textSecretBytes(secret);
    return lazy(() => importHmacKey(compiled.algorithm, bytes));
  });
  const { tolerance, now } = options;
  checkTolerance(tolerance);
  const content = (parts: readonly [string, string], body: RawBody) =>
    concatBytes(utf8(parts[0]), toBytes(body), utf8(parts[1]));
  return {
    name: 'hmac',
    async sign(input) {
      if (compiled.timestampHeader !== undefined || compiled.idHeader !== undefined) {
        checkSignInput(input.id, input.timestamp);
      }
      const data = content(signedParts(compiled, input.id, String(input.timestamp)), input.body);
      const digests: Uint8Array[] = [];
      for (const key of keys) digests.push(await macWith(await key(), data));
      return signedHeaders(compiled, formatSignatures(compiled, digests), input.id, input.timestamp);
    },
    async verify(input) {
      try {
        const request = readHmacRequest(compiled, input.headers);
        if (request.timestamp !== undefined && compiled.timestampHeader !== undefined) {
          checkTimestamp(request.timestamp, { tolerance, now }, compiled.timestampHeader);
        }
        const data = content(signedParts(compiled, request.id ?? '', request.timestampText), input.body);
        for (const key of keys) {
          const expected = await macWith(await key(), data);
          for (const signature of request.signatures) {
            if (constantTimeEqual(expected, signature)) return delivered(request.id, request.timestamp);
          }
        }
        throw noMatch(compiled.header);
      } catch (error) {
        throw asVerificationError(error);
      }
    },
  };
}

const noSignatureWeb: SignatureScheme = { name: 'none', sign: async () => ({}), verify: async () => ({}) };

/** Like `createSignatureScheme`, on Web Crypto. Provider presets need node:crypto and are not offered here. */
export function createSignatureSchemeWeb(config: SignatureConfig, options: SchemeOptions): SignatureScheme {
  switch (config.kind) {
    case 'standard-webhooks':
      return standardWebhooksWeb(options);
    case 'hmac':
      return hmacSchemeWeb(config, options);
    case 'none':
      return noSignatureWeb;
    case 'preset':
      throw new WebhookError(
        'invalid_config',
        `Preset "${config.preset}" needs node:crypto; use createSignatureScheme from @gen-webhooks/runtime`,
      );
    default:
      throw new WebhookError('invalid_config', 'Unknown signature kind');
  }
}

export function generateStandardSecretWeb(byteLength = 32): string {
  if (!Number.isInteger(byteLength) || byteLength < 24 || byteLength > 64) {
    throw new WebhookError('invalid_argument', 'byteLength must be an integer between 24 and 64');
  }
  return `whsec_${encodeBase64(globalThis.crypto.getRandomValues(new Uint8Array(byteLength)))}`;
}

export async function generateEd25519KeyPairWeb(): Promise<{ secretKey: string; publicKey: string }> {
  const pair = (await subtle().generateKey('Ed25519', true, ['sign', 'verify'])) as CryptoKeyPair;
  const jwk = await subtle().exportKey('jwk', pair.privateKey);
  const seed = decodeBase64Url(jwk.d ?? '');
  const pub = decodeBase64Url(jwk.x ?? '');
  if (seed === undefined || pub === undefined)
    throw new WebhookError('invalid_key', 'Ed25519 key export failed');
  return {
    secretKey: `whsk_${encodeBase64(concatBytes(seed, pub))}`,
    publicKey: `whpk_${encodeBase64(pub)}`,
  };
}
