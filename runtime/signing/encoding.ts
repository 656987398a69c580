/**
 * Platform-neutral byte/text codecs used by every signing path (node:crypto and Web Crypto).
 * No `node:*` imports: Workers, Deno and Bun load this file as is.
 *
 * Exports:
 * - `encodeBase64(bytes)`, `decodeBase64(text)` — standard alphabet, padded; `decodeBase64` is strict
 *   (canonical padding and trailing bits) and returns `undefined` for anything else.
 * - `isCanonicalBase64(text)` — the strictness check alone (Node callers then decode with Buffer).
 * - `encodeHex(bytes)`, `decodeHex(text)` — lower-case out; in: either case, even length, else `undefined`.
 * - `utf8(text)`, `concatBytes(...parts)`, `constantTimeEqual(a, b)` (pure JS, for Web paths).
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_SHAPE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX_SHAPE = /^(?:[0-9a-fA-F]{2})*$/;
const encoder = new TextEncoder();

/**
 * True for padded standard base64 whose unused trailing bits are zero. Lenient decoders map several
 * texts to the same bytes; signatures must have exactly one spelling so that any altered character
 * is a different signature.
 */
export function isCanonicalBase64(text: string): boolean {
  if (text.length % 4 !== 0 || !BASE64_SHAPE.test(text)) return false;
  if (text.endsWith('==')) return (ALPHABET.indexOf(text.charAt(text.length - 3)) & 0x0f) === 0;
  if (text.endsWith('=')) return (ALPHABET.indexOf(text.charAt(text.length - 2)) & 0x03) === 0;
  return true;
}

export function decodeBase64(text: string): Uint8Array | undefined {
  if (!isCanonicalBase64(text)) return undefined;
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  // Chunked so String.fromCharCode never receives more arguments than the engine allows.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

export function encodeHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

export function decodeHex(text: string): Uint8Array | undefined {
  if (!HEX_SHAPE.test(text)) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Compares in time that depends only on the lengths (which are public: digest sizes). */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}
