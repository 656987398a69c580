/**
 * Web Crypto primitives for the presets whose verification is async (Zoom, Twitch, Meta, Square,
 * Paddle, Lemon Squeezy, Linear, Intercom, HubSpot, Mailgun, SendGrid, Plaid, Microsoft Graph, Okta,
 * Azure Event Grid). `globalThis.crypto.subtle` exists on Node 20, Workers, Deno and Bun; no `node:*`
 * imports, so these presets run wherever the Web entry does.
 *
 * Exports:
 * - `hmacKeys(secret, algorithm)` — the secrets (rotation: several) as HMAC keys, imported once:
 *   `sign(...parts)` with the first, `matches(given, ...parts)` true when any key's MAC equals any given.
 * - `sha256(...parts)` — digest bytes; `sha256Hex(...parts)`.
 * - `ecdsaP256Key(key)` and `ecdsaP256Verify(key, signature, ...parts)` — P-256 / SHA-256, signature
 *   raw `r‖s` (JWS) or DER (`derToRawSignature` converts; SendGrid sends DER).
 * - `textSecrets(secret)` — each secret as its UTF-8 bytes (providers' dashboard strings), validated.
 * - `equalBytes(a, b)`, `equalText(a, b)` — constant-time for equal lengths.
 */
import { toBytes } from '../bytes.js';
import { WebhookError } from '../errors.js';
import { constantTimeEqual, encodeHex, utf8 } from '../signing/encoding.js';
import type { Secret } from '../signing/scheme.js';
import { secretList } from '../signing/standard-webhooks-core.js';

/** Message parts: text is UTF-8; a raw body may also be an `ArrayBuffer`. */
export type Part = string | Uint8Array | ArrayBuffer;
export type WebHmacAlgorithm = 'SHA-256' | 'SHA-1';

function subtle(): SubtleCrypto {
  const api = globalThis.crypto?.subtle;
  if (api === undefined) {
    throw new WebhookError('invalid_config', 'Web Crypto (globalThis.crypto.subtle) is not available');
  }
  return api;
}

/** The parts as one buffer (Web Crypto takes whole messages, not streamed updates). */
export function joinParts(parts: readonly Part[]): Uint8Array<ArrayBuffer> {
  // toBytes refuses a parsed body (`parsed_body`) rather than hash it as nothing.
  const chunks = parts.map((part) => (typeof part === 'string' ? utf8(part) : toBytes(part)));
  let size = 0;
  for (const chunk of chunks) size += chunk.length;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && constantTimeEqual(a, b);
}

export function equalText(a: string, b: string): boolean {
  return equalBytes(utf8(a), utf8(b));
}

/** Each secret as the UTF-8 bytes of the dashboard string (bytes as given); empty ones refused. */
export function textSecrets(secret: Secret | readonly Secret[] | undefined): readonly Uint8Array[] {
  return secretList(secret).map((one) => {
    if (one instanceof Uint8Array && one.length > 0) return one;
    if (typeof one === 'string' && one !== '') return utf8(one);
    throw new WebhookError('invalid_secret', 'Secret must be a non-empty string or bytes');
  });
}

export interface HmacKeys {
  sign(...parts: Part[]): Promise<Uint8Array>;
  /** True when the MAC of `parts` under some key equals some entry of `given` (all are compared). */
  matches(given: readonly Uint8Array[], ...parts: Part[]): Promise<boolean>;
}

export function hmacKeys(
  secret: Secret | readonly Secret[] | undefined,
  algorithm: WebHmacAlgorithm,
): HmacKeys {
  const raw = textSecrets(secret);
  let imported: Promise<CryptoKey[]> | undefined;
  const keys = (): Promise<CryptoKey[]> => {
    imported ??= Promise.all(
      raw.map((bytes) =>
        subtle().importKey('raw', joinParts([bytes]), { name: 'HMAC', hash: algorithm }, false, ['sign']),
      ),
    );
    return imported;
  };
  const mac = async (key: CryptoKey, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> =>
    new Uint8Array(await subtle().sign('HMAC', key, data));
  return {
    async sign(...parts) {
      const [first] = await keys();
      return mac(first as CryptoKey, joinParts(parts));
    },
    async matches(given, ...parts) {
      const data = joinParts(parts);
      let matched = false;
      for (const key of await keys()) {
        const expected = await mac(key, data);
        for (const candidate of given) if (equalBytes(expected, candidate)) matched = true;
      }
      return matched;
    },
  };
}

export async function sha256(...parts: Part[]): Promise<Uint8Array> {
  return new Uint8Array(await subtle().digest('SHA-256', joinParts(parts)));
}

export async function sha256Hex(...parts: Part[]): Promise<string> {
  return encodeHex(await sha256(...parts));
}

/** A P-256 public key from an EC JWK (Plaid) or DER SubjectPublicKeyInfo bytes (SendGrid). */
export async function ecdsaP256Key(key: JsonWebKey | Uint8Array): Promise<CryptoKey> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256' };
  try {
    if (key instanceof Uint8Array) {
      return await subtle().importKey('spki', joinParts([key]), algorithm, false, ['verify']);
    }
    // Only the public members (a JWK may carry more), each only when present.
    const jwk: JsonWebKey = {};
    for (const name of ['kty', 'crv', 'x', 'y'] as const) {
      const value = key[name];
      if (value !== undefined) jwk[name] = value;
    }
    return await subtle().importKey('jwk', jwk, algorithm, false, ['verify']);
  } catch (cause) {
    throw new WebhookError('invalid_key', 'The ECDSA public key is not a P-256 key', { cause });
  }
}

/** ECDSA P-256 with SHA-256 over the joined parts; `signature` is raw `r‖s` (64 bytes). */
export async function ecdsaP256Verify(
  key: CryptoKey,
  signature: Uint8Array,
  ...parts: Part[]
): Promise<boolean> {
  if (signature.length !== 64) return false;
  return subtle().verify({ name: 'ECDSA', hash: 'SHA-256' }, key, joinParts([signature]), joinParts(parts));
}

/**
 * A DER `SEQUENCE { INTEGER r, INTEGER s }` as raw `r‖s` (`size` bytes each: 32 for P-256, 48 for
 * P-384, 66 for P-521), or `undefined` when it is not exactly that: strict minimal DER (no trailing
 * bytes, no superfluous leading zeros, the short length form where it fits), so one signature has one
 * spelling.
 */
export function derToRawSignature(der: Uint8Array, size = 32): Uint8Array | undefined {
  if (der.length < 8 || der[0] !== 0x30) return undefined;
  // P-521 signatures pass 127 bytes: one long-form length byte (0x81 nn, only for nn >= 128).
  const long = der[1] === 0x81;
  const head = long ? 3 : 2;
  const declared = long ? (der[2] ?? 0) : (der[1] ?? 0);
  if ((long && declared < 0x80) || (!long && declared >= 0x80) || declared !== der.length - head) {
    return undefined;
  }
  const out = new Uint8Array(2 * size);
  let offset = head;
  for (let i = 0; i < 2; i++) {
    if (der[offset] !== 0x02) return undefined;
    const length = der[offset + 1] ?? 0;
    const start = offset + 2;
    const end = start + length;
    if (length === 0 || length > size + 1 || end > der.length) return undefined;
    const first = der[start] ?? 0;
    // Negative integers, and a leading zero not needed for the sign bit, are not minimal DER.
    if (first & 0x80) return undefined;
    if (first === 0 && length > 1 && ((der[start + 1] ?? 0) & 0x80) === 0) return undefined;
    const value = der.subarray(first === 0 && length > 1 ? start + 1 : start, end);
    if (value.length > size) return undefined;
    out.set(value, i * size + size - value.length);
    offset = end;
  }
  return offset === der.length ? out : undefined;
}

/** Raw `r‖s` as minimal DER (what SendGrid and OpenSSL-based signers send), for signing deliveries. */
export function rawToDerSignature(raw: Uint8Array): Uint8Array {
  const half = raw.length / 2;
  const integer = (bytes: Uint8Array): number[] => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++;
    const value = [...bytes.subarray(start)];
    return (value[0] ?? 0) & 0x80 ? [0x02, value.length + 1, 0, ...value] : [0x02, value.length, ...value];
  };
  const content = [...integer(raw.subarray(0, half)), ...integer(raw.subarray(half))];
  const length = content.length < 0x80 ? [content.length] : [0x81, content.length];
  return new Uint8Array([0x30, ...length, ...content]);
}

/** ECDSA P-256 / SHA-256 signature (raw `r‖s`) with a PKCS#8 private key, for test deliveries. */
export async function ecdsaP256Sign(pkcs8: Uint8Array, ...parts: Part[]): Promise<Uint8Array> {
  let key: CryptoKey;
  try {
    key = await subtle().importKey(
      'pkcs8',
      joinParts([pkcs8]),
      { name: 'ECDSA', namedCurve: 'P-256' },
      false,
      ['sign'],
    );
  } catch (cause) {
    throw new WebhookError('invalid_key', 'The signing key is not a PKCS#8 P-256 private key', { cause });
  }
  return new Uint8Array(await subtle().sign({ name: 'ECDSA', hash: 'SHA-256' }, key, joinParts(parts)));
}

/** DER bytes of a PEM block or of bare base64 (SendGrid shows its key as base64 DER). */
export function derFromText(text: string): Uint8Array | undefined {
  const base64 = text.replace(/-----(BEGIN|END) [A-Z ]+-----/g, '').replace(/\s+/g, '');
  try {
    const binary = atob(base64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.length > 0 ? bytes : undefined;
  } catch {
    return undefined;
  }
}
