/**
 * Endpoint secrets at rest: with `secretKeys`, an outbox stores every secret as AES-256-GCM
 * ciphertext (`gwenc:v1:<key id>:<iv>:<ciphertext+tag>`, bound to its endpoint id), never the
 * plaintext. The first key encrypts; every listed key decrypts, so keys rotate by putting the new one
 * first and keeping the old one until the outbox has re-encrypted what it wrote (it does when it
 * opens). Without keys, secrets are stored as given (and a sealed one is refused, not guessed at).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { WebhookError } from '../errors.js';
import type { EndpointSecret } from './outbox.js';

export interface SecretKey {
  /** Names the key in each ciphertext, so the right one decrypts it: `[A-Za-z0-9_-]{1,64}`. */
  readonly id: string;
  /**
   * 32 random bytes: raw, or their canonical base64 (`toString('base64')`, padded) or base64url
   * (`toString('base64url')`, unpadded). Anything else — stray characters, whitespace, another length,
   * every byte the same — is refused.
   */
  readonly key: Uint8Array | string;
}

/** A secret as the `secrets` column holds it: `sealed` with keys, `secret` (plaintext) without. */
export interface StoredSecret {
  readonly secret?: string;
  readonly sealed?: string;
  readonly createdAt: number;
  readonly expiresAt?: number;
}

export interface SecretCodec {
  readonly encrypts: boolean;
  /** The stored form of a secret of endpoint `endpointId`. */
  store(secret: EndpointSecret, endpointId: string): StoredSecret;
  read(stored: StoredSecret, endpointId: string): EndpointSecret;
  /** The row's secrets rewritten under the current key, or undefined when they already are. */
  reseal(stored: readonly StoredSecret[], endpointId: string): StoredSecret[] | undefined;
  /**
   * The stored form of an endpoint URL: a broker destination's userinfo (its credentials) sealed
   * like a secret, as `scheme://gwenc.v1.<key>.<iv>.<ciphertext>@host/…`. URLs without userinfo as given.
   */
  storeUrl(url: string, endpointId: string): string;
  readUrl(stored: string, endpointId: string): string;
}

const SEALED_USERINFO = 'gwenc.v1.';

/** `[start, end)` of the URL's userinfo (before the `@` of its authority), or undefined. */
function userinfoSpan(url: string): [number, number] | undefined {
  const start = url.indexOf('//');
  if (start < 0) return undefined;
  let end = url.length;
  for (const c of ['/', '?', '#']) {
    const i = url.indexOf(c, start + 2);
    if (i >= 0 && i < end) end = i;
  }
  const at = url.lastIndexOf('@', end);
  return at > start + 2 ? [start + 2, at] : undefined;
}

function mapUserinfo(url: string, map: (userinfo: string) => string | undefined): string {
  const span = userinfoSpan(url);
  if (!span) return url;
  const next = map(url.slice(span[0], span[1]));
  return next === undefined ? url : `${url.slice(0, span[0])}${next}${url.slice(span[1])}`;
}

const VERSION = 'gwenc:v1:';
const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const CACHE_LIMIT = 10_000;

export function secretCodec(keys: readonly SecretKey[] | undefined, where: string): SecretCodec {
  if (keys === undefined) return plaintextCodec;
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new WebhookError('invalid_config', `${where}: secretKeys must list at least one key`);
  }
  const byId = new Map<string, Buffer>();
  for (const [i, k] of keys.entries()) {
    if (typeof k?.id !== 'string' || !KEY_ID.test(k.id) || byId.has(k.id)) {
      throw new WebhookError(
        'invalid_config',
        `${where}: secretKeys[${i}].id must be a unique [A-Za-z0-9_-]{1,64}`,
      );
    }
    byId.set(k.id, decodeKey(k.key, `${where}: secretKeys[${i}] ("${k.id}")`, k.id));
  }
  const currentId = (keys[0] as SecretKey).id;
  const current = byId.get(currentId) as Buffer;
  // Decryption runs for every claimed endpoint; a ciphertext (random IV) names one plaintext forever.
  const opened = new Map<string, string>();

  const seal = (secret: string, endpointId: string): string => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', current, iv);
    cipher.setAAD(Buffer.from(endpointId, 'utf8'));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}${currentId}:${iv.toString('base64url')}:${body.toString('base64url')}`;
  };
  const open = (sealed: string, endpointId: string): string => {
    const cacheKey = `${endpointId}\n${sealed}`;
    const hit = opened.get(cacheKey);
    if (hit !== undefined) return hit;
    const [keyId, ivText, bodyText] = sealed.startsWith(VERSION)
      ? sealed.slice(VERSION.length).split(':')
      : [];
    const key = keyId === undefined ? undefined : byId.get(keyId);
    if (!key || ivText === undefined || bodyText === undefined) {
      throw new WebhookError(
        'invalid_key',
        keyId === undefined
          ? `Endpoint "${endpointId}": unknown secret format`
          : `Endpoint "${endpointId}": its secret is encrypted with key "${keyId}", which is not in secretKeys`,
        { details: { endpointId, ...(keyId !== undefined ? { keyId } : {}) } },
      );
    }
    const body = Buffer.from(bodyText, 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
      decipher.setAAD(Buffer.from(endpointId, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - 16));
      const plain = Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]);
      if (opened.size >= CACHE_LIMIT) opened.clear();
      const text = plain.toString('utf8');
      opened.set(cacheKey, text);
      return text;
    } catch (error) {
      throw new WebhookError(
        'invalid_key',
        `Endpoint "${endpointId}": its secret does not decrypt with key "${keyId}" (wrong key, or altered)`,
        { cause: error, details: { endpointId, keyId } },
      );
    }
  };
  const sealedBy = (s: StoredSecret) =>
    s.sealed?.startsWith(VERSION) ? s.sealed.slice(VERSION.length).split(':', 1)[0] : undefined;

  const codec: SecretCodec = {
    encrypts: true,
    // The ciphertext's `:` separators become `.`: a `:` in userinfo would split user and password.
    storeUrl: (url, endpointId) =>
      mapUserinfo(url, (info) =>
        info.startsWith(SEALED_USERINFO) ? undefined : seal(info, endpointId).replaceAll(':', '.'),
      ),
    readUrl: (stored, endpointId) =>
      mapUserinfo(stored, (info) =>
        info.startsWith(SEALED_USERINFO) ? open(info.replaceAll('.', ':'), endpointId) : undefined,
      ),
    store: (s, endpointId) => withTimes({ sealed: seal(s.secret, endpointId) }, s),
    read: (s, endpointId) =>
      s.sealed === undefined ? (s as EndpointSecret) : withTimes({ secret: open(s.sealed, endpointId) }, s),
    reseal(stored, endpointId) {
      if (stored.every((s) => sealedBy(s) === currentId)) return undefined;
      return stored.map((s) =>
        sealedBy(s) === currentId ? s : codec.store(codec.read(s, endpointId), endpointId),
      );
    },
  };
  return codec;
}

const KEY_BYTES = 32;
const EXPECTED = `${KEY_BYTES} random bytes (AES-256): raw, or their canonical base64 (44 characters, padded) or base64url (43)`;

/**
 * The key's bytes, decoded strictly: `Buffer.from(text, 'base64')` skips characters it does not know
 * and stops at padding, so a typo, a pasted newline or a truncated value would silently become some
 * other (or a shorter) key. Only an exact re-encoding is accepted. Errors name the key id and the form
 * expected, never the key.
 */
function decodeKey(key: unknown, label: string, keyId: string): Buffer {
  const refuse = (problem: string): never => {
    throw new WebhookError('invalid_config', `${label}: key ${problem}; expected ${EXPECTED}`, {
      details: { keyId, expected: EXPECTED },
    });
  };
  let bytes: Buffer | undefined;
  if (typeof key === 'string') {
    for (const encoding of ['base64', 'base64url'] as const) {
      const decoded: Buffer = Buffer.from(key, encoding);
      if (decoded.toString(encoding) === key) bytes = decoded;
    }
    if (bytes === undefined) {
      refuse(
        /^[0-9a-f]{64}$/i.test(key)
          ? 'looks like hex, which is not accepted (decode it: Buffer.from(hex, "hex"))'
          : `is not canonical base64 or base64url (${key.length} characters${/\s/.test(key) ? ', with whitespace' : ''})`,
      );
    }
  } else if (key instanceof Uint8Array) {
    bytes = Buffer.from(key);
  } else {
    refuse(`is ${key === null ? 'null' : typeof key}, not a string or Uint8Array`);
  }
  const ok = bytes as Buffer;
  if (ok.length !== KEY_BYTES) refuse(`is ${ok.length} bytes`);
  // A placeholder (`Buffer.alloc(32)`, 'A' × 32) would encrypt every secret with a guessable key.
  if (ok.every((b) => b === ok[0])) refuse('repeats one byte value (a placeholder, not a random key)');
  return ok;
}

const plaintextCodec: SecretCodec = {
  encrypts: false,
  store: (s) => s,
  read(s, endpointId) {
    if (s.sealed !== undefined) {
      throw new WebhookError(
        'invalid_key',
        `Endpoint "${endpointId}": its secret is encrypted; open the outbox with secretKeys`,
        { details: { endpointId } },
      );
    }
    return s as EndpointSecret;
  },
  reseal: () => undefined,
  storeUrl: (url) => url,
  readUrl(stored, endpointId) {
    return mapUserinfo(stored, (info) => {
      if (!info.startsWith(SEALED_USERINFO)) return undefined;
      throw new WebhookError(
        'invalid_key',
        `Endpoint "${endpointId}": its URL credentials are encrypted; open the outbox with secretKeys`,
        { details: { endpointId } },
      );
    });
  },
};

function withTimes<T extends object>(value: T, from: StoredSecret | EndpointSecret): T & StoredSecret {
  return {
    ...value,
    createdAt: from.createdAt,
    ...(from.expiresAt !== undefined ? { expiresAt: from.expiresAt } : {}),
  };
}
