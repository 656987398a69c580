/**
 * SHA-256 in plain JavaScript, synchronous on every runtime. The provider presets derive dedupe ids
 * from hashes (a Stripe signature header, a Discord event body) inside synchronous `eventId`
 * functions, and Web Crypto's digest is asynchronous. Never used to verify a signature: schemes use
 * node:crypto or Web Crypto. Checked against node:crypto by sha256.test.ts.
 */
import { encodeHex, utf8 } from './encoding.js';

const K = new Uint32Array(64);
const H0 = new Uint32Array(8);
{
  // First 32 bits of the fractional parts of the cube (K) and square (H0) roots of the first primes.
  let n = 0;
  for (let candidate = 2; n < 64; candidate++) {
    let prime = true;
    for (let d = 2; d * d <= candidate; d++) if (candidate % d === 0) prime = false;
    if (!prime) continue;
    if (n < 8) H0[n] = (Math.sqrt(candidate) % 1) * 2 ** 32;
    K[n++] = (Math.cbrt(candidate) % 1) * 2 ** 32;
  }
}

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

export function sha256(data: Uint8Array): Uint8Array {
  const length = data.length;
  const padded = new Uint8Array((((length + 8) >>> 6) + 1) << 6);
  padded.set(data);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
  view.setUint32(padded.length - 4, (length << 3) >>> 0);
  const h = H0.slice();
  const w = new Uint32Array(64);
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15] as number;
      const b = w[i - 2] as number;
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
      w[i] = (w[i - 16] as number) + s0 + (w[i - 7] as number) + s1;
    }
    let [a, b, c, d, e, f, g, k] = h as unknown as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    for (let i = 0; i < 64; i++) {
      const t1 =
        (k +
          (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +
          ((e & f) ^ (~e & g)) +
          (K[i] as number) +
          (w[i] as number)) |
        0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = (h[0] as number) + a;
    h[1] = (h[1] as number) + b;
    h[2] = (h[2] as number) + c;
    h[3] = (h[3] as number) + d;
    h[4] = (h[4] as number) + e;
    h[5] = (h[5] as number) + f;
    h[6] = (h[6] as number) + g;
    h[7] = (h[7] as number) + k;
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(i * 4, h[i] as number);
  return out;
}

/** Hex SHA-256 of the parts in order (strings as UTF-8). */
export function sha256Hex(...parts: readonly (string | Uint8Array)[]): string {
  if (parts.length === 1 && parts[0] instanceof Uint8Array) return encodeHex(sha256(parts[0]));
  const bytes = parts.map((part) => (typeof part === 'string' ? utf8(part) : part));
  const joined = new Uint8Array(bytes.reduce((size, part) => size + part.length, 0));
  let at = 0;
  for (const part of bytes) {
    joined.set(part, at);
    at += part.length;
  }
  return encodeHex(sha256(joined));
}
