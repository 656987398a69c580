/**
 * Web Crypto (`globalThis.crypto.subtle`) primitives shared by the Web signing paths and the Web preset
 * crypto: HMAC keys and MACs, Ed25519 key import, lazy key promises. Imports no `node:*` module.
 */
import { WebhookError } from '../errors.js';
import { concatBytes, constantTimeEqual, decodeBase64, utf8 } from './encoding.js';
import type { HmacAlgorithm } from './hmac-scheme-core.js';
import { ED25519_PKCS8_PREFIX } from './standard-webhooks-core.js';

const HASH: Readonly<Record<HmacAlgorithm, string>> = { sha1: 'SHA-1', sha256: 'SHA-256', sha512: 'SHA-512' };

export function subtle(): SubtleCrypto {
  const value = globalThis.crypto?.subtle;
  if (value === undefined)
    throw new WebhookError('invalid_config', 'Web Crypto (crypto.subtle) is not available');
  return value;
}

/** Web Crypto wants ArrayBuffer-backed views; copy only views over something else. */
export function view(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}

export function importHmacKey(algorithm: HmacAlgorithm, key: Uint8Array): Promise<CryptoKey> {
  return subtle().importKey('raw', view(key), { name: 'HMAC', hash: HASH[algorithm] }, false, ['sign']);
}

export async function macWith(key: CryptoKey, data: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await subtle().sign('HMAC', key, view(data)));
}

export function joinParts(parts: ReadonlyArray<Uint8Array | string>): Uint8Array {
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

/** Runs `make` once, on first use: scheme constructors stay synchronous. */
export function lazy<T>(make: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => {
    promise ??= make();
    return promise;
  };
}

export async function importEd25519(seed: Uint8Array, publicKey: Uint8Array | undefined) {
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

export async function importEd25519Public(raw: Uint8Array): Promise<CryptoKey> {
  try {
    return await subtle().importKey('raw', view(raw), 'Ed25519', true, ['verify']);
  } catch (cause) {
    throw new WebhookError('invalid_key', 'Invalid Ed25519 public key', { cause });
  }
}

export function decodeBase64Url(text: string): Uint8Array | undefined {
  const base64 = text.replaceAll('-', '+').replaceAll('_', '/');
  return decodeBase64(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
}
