/**
 * node:crypto primitives shared by the Node signing paths and the provider presets (which import this
 * file directly, never the signing barrel).
 *
 * Exports:
 * - `HmacAlgorithm`, `DIGEST_LENGTH`
 * - `hmac(algorithm, key, ...data)` → `Uint8Array` (data parts are hashed in order, no concatenation)
 * - `timingSafeEqualBytes(a, b)` — constant-time for equal lengths, `false` otherwise
 * - `toKeyBytes(secret)` — a string secret as its UTF-8 bytes, bytes as they are (GitHub-style secrets)
 * - re-exported codecs from `encoding.ts`: `encodeBase64`, `decodeBase64`, `encodeHex`, `decodeHex`,
 *   `isCanonicalBase64`, `utf8`
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type HmacAlgorithm, textSecretBytes } from './hmac-scheme-core.js';
import type { Secret } from './scheme.js';

export { decodeBase64, decodeHex, encodeBase64, encodeHex, isCanonicalBase64, utf8 } from './encoding.js';

export type { HmacAlgorithm };

export const DIGEST_LENGTH: Readonly<Record<HmacAlgorithm, number>> = { sha1: 20, sha256: 32, sha512: 64 };

export function hmac(
  algorithm: HmacAlgorithm,
  key: Uint8Array,
  ...data: ReadonlyArray<Uint8Array | string>
): Uint8Array {
  const mac = createHmac(algorithm, key);
  for (const part of data) mac.update(part);
  return mac.digest();
}

export function timingSafeEqualBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Secrets of "shared password" schemes (simple HMAC, GitHub, Shopify): text is used as its UTF-8 bytes. */
export function toKeyBytes(secret: Secret): Uint8Array {
  const bytes = textSecretBytes(secret);
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
