/**
 * Platform-neutral byte/text codecs used by every signing path (node:crypto and Web Crypto).
 * No `node:*` imports: Workers, Deno and Bun load this file as is.
 *
 * Exports:
 * - `encodeBase64(bytes)`, `decodeBase64(text)` — standard alphabet, padded; `decodeBase64` is strict
 *   (canonical padding and trailing bits) and returns `undefined` for anything else.
 * - `isCanonicalBase64(text)` — the strictness check alone (Node callers then decode with Buffer).
 * - `encodeHex(bytes)`, `decodeHex(text)` — lower-case out; in: either case, even length, else `undefined`.
 * - `decodeCanonicalHex(text)` — lower case only (the one spelling `encodeHex` writes), for signatures.
 * - `utf8(text)`, `concatBytes(...parts)`, `constantTimeEqual(a, b)` (pure JS, for Web paths),
 *   `constantTimeEqualStrings(a, b)` (for canonical encodings: equal text ⇔ equal bytes).
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) BASE64_VALUES[ALPHABET.charCodeAt(i)] = i;
// Hex digit values by char code (-1: not a digit), one table per accepted spelling.
const LOWER_HEX_VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) LOWER_HEX_VALUES['0123456789abcdef'.charCodeAt(i)] = i;
const HEX_VALUES = LOWER_HEX_VALUES.slice();
for (let i = 0; i < 6; i++) HEX_VALUES['ABCDEF'.charCodeAt(i)] = 10 + i;

/**
 * True for padded standard base64 whose unused trailing bits are zero. Lenient decoders map several
 * texts to the same bytes; signatures must have exactly one spelling so that any altered character
 * is a different signature.
 */
export function isCanonicalBase64(text: string): boolean {
  const length = text.length;
  if (length % 4 !== 0) return false;
  let padding = 0;
  if (length > 0 && text.charCodeAt(length - 1) === 0x3d)
    padding = text.charCodeAt(length - 2) === 0x3d ? 2 : 1;
  const end = length - padding;
  // A table lookup per character: this runs on every verification, regexes cost several times more.
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code > 127 || (BASE64_VALUES[code] ?? -1) < 0) return false;
  }
  if (padding === 2) return ((BASE64_VALUES[text.charCodeAt(length - 3)] ?? 0) & 0x0f) === 0;
  if (padding === 1) return ((BASE64_VALUES[text.charCodeAt(length - 2)] ?? 0) & 0x03) === 0;
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
  return hexWith(HEX_VALUES, text);
}

/** Checks and decodes in one pass (a shape regex, then a slice and parseInt per byte, cost ~1 µs per signature). */
function hexWith(values: Int8Array, text: string): Uint8Array | undefined {
  if (text.length % 2 !== 0) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) {
    const hi = text.charCodeAt(2 * i);
    const lo = text.charCodeAt(2 * i + 1);
    const h = hi < 128 ? (values[hi] as number) : -1;
    const l = lo < 128 ? (values[lo] as number) : -1;
    if (h < 0 || l < 0) return undefined;
    out[i] = (h << 4) | l;
  }
  return out;
}

/**
 * Hex as `encodeHex` writes it (lower case). Signature verifiers use this, as the providers' own libraries
 * do (they compare hex text): `SHA256=<UPPER>` is a different text, so it must not count as the same
 * signature, or a case-changed copy of a captured request would pass as new.
 */
export function decodeCanonicalHex(text: string): Uint8Array | undefined {
  return hexWith(LOWER_HEX_VALUES, text);
}

export { utf8 } from '../bytes.js';

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

/** Like `constantTimeEqual`, over UTF-16 code units of two strings (use on canonical base64/hex only). */
/** `constantTimeEqualStrings(a, b.slice(offset))` without the slice. */
export function constantTimeEqualStringsAt(a: string, b: string, offset: number): boolean {
  if (a.length !== b.length - offset) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i + offset);
  return diff === 0;
}

export function constantTimeEqualStrings(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
