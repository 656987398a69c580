/**
 * The platform-neutral half of Standard Webhooks (https://www.standardwebhooks.com): header reading,
 * signature-list parsing and key decoding. The node:crypto path (`standard-webhooks.ts`) and the Web
 * Crypto path (`web.ts`) share it, so both accept and reject exactly the same inputs.
 * No `node:*` imports.
 *
 * Exports:
 * - `WEBHOOK_HEADERS`, `SVIX_HEADERS`, `headerNamesFor(prefix)` — the two header families.
 * - `readHeader(headers, name)` (from headers.ts) — like `getHeader` but total: any non-string value is
 *   `malformed_header`.
 * - `readStandardHeaders(headers)` — id, timestamp text and signature text from the `webhook-*` family,
 *   falling back to `svix-*` when `webhook-signature` is absent.
 * - `parseSignatureList(value, headerName)` — `v1,<b64>`/`v1a,<b64>` entries (space separated).
 * - `decodeStandardKey(secret)` — `whsec_…`, `whsk_…`, `whpk_…`, bare base64 or raw bytes → `StandardKey`;
 *   `decodeVerificationKey(secret)` the same for verifiers, which refuse a `whsk_` signing key, as
 *   `refuseSigningKeys(secret)` does for the Node receivers' full scheme.
 * - `signedPrefix(id, timestamp)` — `${id}.${timestamp}.`; the body bytes follow it.
 * - `ED25519_PKCS8_PREFIX`, `ED25519_SPKI_PREFIX` — DER headers to import raw 32-byte Ed25519 keys.
 */
import { WebhookError } from '../errors.js';
import { malformedHeader, readHeader } from '../headers.js';
import type { Tolerance } from '../timestamp.js';
import { decodeBase64, isCanonicalBase64, utf8 } from './encoding.js';
import type { RawBody, Secret, VerifiedDelivery } from './scheme.js';

export { readHeader };

export type HeaderPrefix = 'webhook' | 'svix';

export interface StandardHeaderNames {
  readonly id: string;
  readonly timestamp: string;
  readonly signature: string;
}

export const WEBHOOK_HEADERS: StandardHeaderNames = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
};

export const SVIX_HEADERS: StandardHeaderNames = {
  id: 'svix-id',
  timestamp: 'svix-timestamp',
  signature: 'svix-signature',
};

export function headerNamesFor(prefix: HeaderPrefix = 'webhook'): StandardHeaderNames {
  return prefix === 'svix' ? SVIX_HEADERS : WEBHOOK_HEADERS;
}

/** Entries beyond this many are ignored: each `v1a` entry costs an Ed25519 verification. */
export const MAX_SIGNATURES = 16;

/** HMAC-SHA256 is 32 bytes (44 base64 chars), Ed25519 signatures 64 bytes (88 chars). */
const V1_LENGTH = 44;
const V1A_LENGTH = 88;

export interface StandardHeaderValues {
  readonly names: StandardHeaderNames;
  readonly id: string;
  readonly timestamp: string;
  readonly signature: string;
}

/** Reads the three headers of one family; `webhook-*` wins, `svix-*` is the fallback (Svix senders). */
export function readStandardHeaders(headers: unknown): StandardHeaderValues {
  let names = WEBHOOK_HEADERS;
  let signature = readHeader(headers, WEBHOOK_HEADERS.signature);
  if (signature === undefined) {
    const svix = readHeader(headers, SVIX_HEADERS.signature);
    if (svix !== undefined) {
      names = SVIX_HEADERS;
      signature = svix;
    }
  }
  const required = (header: string, value = readHeader(headers, header)): string => {
    if (value === undefined || value === '') {
      throw new WebhookError('missing_header', `Missing ${header} header`, { details: { header } });
    }
    return value;
  };
  // Checked in this order: id, timestamp, signature.
  const id = required(names.id);
  const timestamp = required(names.timestamp);
  return { names, id, timestamp, signature: required(names.signature, signature) };
}

export interface SignatureList {
  /**
   * 44-character HMAC-SHA256 candidates, not yet checked to be base64: verifiers compare them as text
   * with the canonical base64 of the expected MAC (or decode them strictly), so only a canonical
   * spelling can ever match.
   */
  readonly v1: string[];
  /** Base64 Ed25519 signatures (canonical, 88 chars). */
  readonly v1a: string[];
}

/**
 * Parses `v1,<b64> v1a,<b64> …`. Unknown versions and undecodable values are skipped (the spec asks
 * receivers to ignore versions they do not know); a header with no `<version>,<value>` entry at all
 * is malformed. A trailing comma per entry is tolerated because repeated headers arrive joined by `, `.
 */
export function parseSignatureList(value: string, headerName: string): SignatureList {
  const list: SignatureList = { v1: [], v1a: [] };
  let entries = 0;
  let considered = 0;
  const length = value.length;
  // Scans with indexOf rather than split/regex: this runs on every delivery.
  for (let start = 0; start < length && considered < MAX_SIGNATURES; ) {
    let end = value.indexOf(' ', start);
    if (end === -1) end = length;
    if (end > start) {
      considered++;
      let token = value.slice(start, end);
      if (token.charCodeAt(0) <= 0x20 || token.charCodeAt(token.length - 1) <= 0x20) token = token.trim();
      if (token.endsWith(',')) token = token.slice(0, -1);
      const comma = token.indexOf(',');
      if (comma > 0) {
        entries++;
        const signature = token.slice(comma + 1);
        if (comma === 2 && token.startsWith('v1')) {
          if (signature.length === V1_LENGTH) list.v1.push(signature);
        } else if (comma === 3 && token.startsWith('v1a')) {
          if (signature.length === V1A_LENGTH && isCanonicalBase64(signature)) list.v1a.push(signature);
        }
      }
    }
    start = end + 1;
  }
  if (entries === 0) throw malformedHeader(headerName, `${headerName} has no "<version>,<signature>" entry`);
  return list;
}

/**
 * True when the header is exactly one `v1,<44 characters>` entry — what every sender but one in
 * rotation sends. `parseSignatureList` would return `{ v1: [value.slice(3)], v1a: [] }` for it, so a
 * verifier may compare `value` from offset 3 directly and skip building the list.
 */
export function isSingleV1Entry(value: string): boolean {
  return (
    value.length === 3 + V1_LENGTH &&
    value.startsWith('v1,') &&
    value.charCodeAt(value.length - 1) > 0x20 &&
    value.indexOf(' ', 3) === -1 &&
    value.indexOf(',', 3) === -1
  );
}

export type StandardKey =
  /** Symmetric HMAC-SHA256 key (`v1`). */
  | { readonly kind: 'hmac'; readonly bytes: Uint8Array }
  /** Ed25519 signing key (`v1a`): the 32-byte seed, plus the public key when the 64-byte form was given. */
  | { readonly kind: 'ed25519-secret'; readonly seed: Uint8Array; readonly publicKey?: Uint8Array }
  /** Ed25519 verification-only key (`v1a`). */
  | { readonly kind: 'ed25519-public'; readonly publicKey: Uint8Array };

function invalidSecret(message: string): WebhookError {
  return new WebhookError('invalid_secret', message);
}

/**
 * Decodes one secret:
 * - `whsec_<base64>` — HMAC key bytes (the Standard Webhooks/Svix form);
 * - a bare base64 string — the same key without the prefix, as the reference libraries accept it;
 * - `Uint8Array` — raw HMAC key bytes (use `utf8('text')` to use a text password as is);
 * - `whsk_<base64 of 32-byte seed or 64-byte seed‖public key>` — Ed25519 signing key;
 * - `whpk_<base64 of 32-byte public key>` — Ed25519 verification key.
 * Anything else (empty, not base64, wrong key length) is `invalid_secret`/`invalid_key`.
 */
export function decodeStandardKey(secret: Secret): StandardKey {
  if (typeof secret === 'string' && secret.startsWith('whsk_')) {
    const bytes = decodeBase64(secret.slice(5));
    if (bytes === undefined || (bytes.length !== 32 && bytes.length !== 64)) {
      throw new WebhookError('invalid_key', 'whsk_ key must be base64 of a 32-byte seed or 64-byte key pair');
    }
    return bytes.length === 32
      ? { kind: 'ed25519-secret', seed: bytes }
      : { kind: 'ed25519-secret', seed: bytes.slice(0, 32), publicKey: bytes.slice(32) };
  }
  return decodeVerificationKey(secret);
}

/** The refusal of a `whsk_` signing key where only verification happens (receivers, parsers). */
function signingKeyInReceiver(): WebhookError {
  return new WebhookError(
    'invalid_key',
    'A whsk_ key signs: give the receiver the whpk_ public key of the pair (whoever holds whsk_ can forge deliveries)',
  );
}

/** Throws `invalid_key` for a `whsk_` signing key among a receiver's secrets (see `decodeVerificationKey`). */
export function refuseSigningKeys(secret: Secret | readonly Secret[] | undefined): void {
  for (const key of secretList(secret)) {
    if (typeof key === 'string' && key.startsWith('whsk_')) throw signingKeyInReceiver();
  }
}

/**
 * `decodeStandardKey` for verification only: a `whsk_` signing key is refused, so a verifier carries
 * no code to derive a public key from a seed (and a receiver never holds what can sign).
 */
export function decodeVerificationKey(secret: Secret): Exclude<StandardKey, { kind: 'ed25519-secret' }> {
  if (secret instanceof Uint8Array) {
    if (secret.length === 0) throw invalidSecret('Secret is empty');
    return { kind: 'hmac', bytes: secret };
  }
  if (typeof secret !== 'string') throw invalidSecret('Secret must be a string or bytes');
  if (secret.startsWith('whsk_')) throw signingKeyInReceiver();
  if (secret.startsWith('whpk_')) {
    const bytes = decodeBase64(secret.slice(5));
    if (bytes === undefined || bytes.length !== 32) {
      throw new WebhookError('invalid_key', 'whpk_ key must be base64 of a 32-byte Ed25519 public key');
    }
    return { kind: 'ed25519-public', publicKey: bytes };
  }
  const text = secret.startsWith('whsec_') ? secret.slice(6) : secret;
  // Secrets are copied by hand: accept a missing final padding, nothing else.
  const padded = text.length % 4 === 0 ? text : text + '='.repeat(4 - (text.length % 4));
  const bytes = decodeBase64(padded);
  if (bytes === undefined || bytes.length === 0) {
    throw invalidSecret(
      'Secret must be "whsec_<base64>", bare base64, or raw bytes (to use a text password, pass its UTF-8 bytes)',
    );
  }
  return { kind: 'hmac', bytes };
}

/** `secret | secret[]` → non-empty list. */
export function secretList(secret: Secret | readonly Secret[] | undefined): readonly Secret[] {
  const list = Array.isArray(secret)
    ? (secret as readonly Secret[])
    : secret === undefined
      ? []
      : [secret as Secret];
  if (list.length === 0) throw new WebhookError('invalid_secret', 'At least one secret is required');
  return list;
}

/** The bytes signed before the body: `${id}.${timestamp}.` */
export function signedPrefix(id: string, timestamp: number | string): string {
  return `${id}.${timestamp}.`;
}

export function signedPrefixBytes(id: string, timestamp: number | string): Uint8Array {
  return utf8(signedPrefix(id, timestamp));
}

/**
 * Checks the sign-side inputs every path shares. The id travels in a header, so it must survive HTTP:
 * non-empty, no control characters, no surrounding whitespace (proxies trim it, breaking the signature).
 */
export function checkSignInput(id: unknown, timestamp: unknown): asserts id is string {
  if (typeof id !== 'string' || !/^[^\x00-\x20\x7f](?:[^\x00-\x1f\x7f]*[^\x00-\x20\x7f])?$/.test(id)) {
    throw new WebhookError('invalid_argument', 'Message id must be a non-empty header-safe string');
  }
  if (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new WebhookError('invalid_argument', 'timestamp must be non-negative integer Unix seconds');
  }
}

/** Verification throws `WebhookError` only: anything else (a throwing header getter, …) becomes one. */
export function asVerificationError(error: unknown): WebhookError {
  if (error instanceof WebhookError) return error;
  return new WebhookError('invalid_signature', 'Signature verification failed', { cause: error });
}

export function noMatch(header: string): WebhookError {
  return new WebhookError('invalid_signature', `No signature in ${header} matches`, { details: { header } });
}

/** A `VerifiedDelivery` without `undefined`-valued keys. */
export function delivered(id: string | undefined, timestamp: number | undefined): VerifiedDelivery {
  if (id === undefined) return timestamp === undefined ? {} : { timestamp };
  return timestamp === undefined ? { id } : { id, timestamp };
}

// DER headers of PKCS#8 / SPKI Ed25519 keys; the 32 raw key bytes follow them. Both node:crypto and
// Web Crypto import raw seeds through PKCS#8.
export const ED25519_PKCS8_PREFIX: Uint8Array = /* @__PURE__ */ Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);
export const ED25519_SPKI_PREFIX: Uint8Array = /* @__PURE__ */ Uint8Array.from([
  0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
]);

/** Inputs of the Standard Webhooks sign/verify functions (shared by the node:crypto and Web Crypto paths). */
export interface StandardSignInput {
  readonly id: string;
  /** Unix seconds. */
  readonly timestamp: number;
  readonly body: RawBody;
  readonly secret: Secret | readonly Secret[];
}

export interface StandardVerifyInput {
  readonly headers: unknown;
  readonly body: RawBody;
  readonly secret: Secret | readonly Secret[];
  /** Seconds, both directions, or `{ past, future }`. Default 300. */
  readonly tolerance?: Tolerance;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * A bounded memo of decoded keys by secret string. Decoding a whsec_ string or importing an Ed25519
 * key costs more than the HMAC itself, and the plain function API would otherwise pay it per call.
 * Byte secrets are not cached (no cheap identity). Cleared whole when full: simple and bounded.
 */
export function createKeyCache<K>(limit = 256): (secret: Secret, build: (secret: Secret) => K) => K {
  const cache = new Map<string, K>();
  return (secret, build) => {
    if (typeof secret !== 'string') return build(secret);
    const cached = cache.get(secret);
    if (cached !== undefined) return cached;
    const key = build(secret);
    if (cache.size >= limit) cache.clear();
    cache.set(secret, key);
    return key;
  };
}
