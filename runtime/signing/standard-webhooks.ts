/**
 * Standard Webhooks on node:crypto (sync). The Web Crypto twin is `web.ts`; both share
 * `standard-webhooks-core.ts`, so they accept exactly the same inputs.
 *
 * Exports:
 * - `signStandardWebhook({ id, timestamp, body, secret })` → the `webhook-signature` value
 *   (`v1,<b64>` per HMAC secret, `v1a,<b64>` per `whsk_` key, space separated)
 * - `standardWebhookHeaders({ …, headerPrefix })` → `{ 'webhook-id', 'webhook-timestamp', 'webhook-signature' }`
 * - `verifyStandardWebhook({ headers, body, secret, tolerance, now })` → `{ id, timestamp }`
 * - `standardWebhooks(options)` → `SignatureScheme` (keys decoded once, at construction);
 *   `standardWebhooksVerifier(options)`, the same for receivers, refuses `whsk_` signing keys
 * - `generateStandardSecret(byteLength?)` → `whsec_<base64>`; Ed25519 pairs: `generateEd25519KeyPair` (ed25519.ts)
 */
import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { toBytes } from '../bytes.js';
import { WebhookError } from '../errors.js';
import { checkTimestamp, checkTolerance, parseUnixSeconds, type Tolerance } from '../timestamp.js';
import {
  type Ed25519Key,
  ed25519PrivateKey,
  ed25519PublicKey,
  ed25519Sign,
  ed25519Verify,
  rawPublicKey,
} from './ed25519.js';
import { constantTimeEqual, constantTimeEqualStrings, constantTimeEqualStringsAt } from './encoding.js';
import type { RawBody, SchemeOptions, Secret, SignatureScheme, VerifiedDelivery } from './scheme.js';
import {
  asVerificationError,
  checkSignInput,
  createKeyCache,
  decodeStandardKey,
  type HeaderPrefix,
  headerNamesFor,
  isSingleV1Entry,
  noMatch,
  parseSignatureList,
  readStandardHeaders,
  refuseSigningKeys,
  type StandardSignInput,
  type StandardVerifyInput,
  secretList,
  signedPrefix,
} from './standard-webhooks-core.js';

export type { StandardSignInput, StandardVerifyInput };

export interface StandardWebhooksOptions extends SchemeOptions {
  /** Header family `sign` writes: `webhook-*` (default) or `svix-*`. Verification accepts both. */
  readonly headerPrefix?: HeaderPrefix;
}

type NodeKey =
  | { readonly kind: 'hmac'; readonly key: KeyObject }
  | { readonly kind: 'ed25519'; readonly publicKey: Ed25519Key; readonly privateKey?: Ed25519Key };

const cachedKey = createKeyCache<NodeKey>();

function prepareKey(secret: Secret): NodeKey {
  return cachedKey(secret, decodeKey);
}

function decodeKey(secret: Secret): NodeKey {
  const decoded = decodeStandardKey(secret);
  let key: NodeKey;
  if (decoded.kind === 'hmac') {
    // A KeyObject: createHmac then skips importing raw key bytes on every call (~4% of a 1 KiB verify).
    key = { kind: 'hmac', key: createSecretKey(decoded.bytes) };
  } else if (decoded.kind === 'ed25519-public') {
    key = { kind: 'ed25519', publicKey: ed25519PublicKey(decoded.publicKey) };
  } else {
    const privateKey = ed25519PrivateKey(decoded.seed);
    const publicRaw = rawPublicKey(privateKey);
    if (decoded.publicKey !== undefined && !constantTimeEqual(decoded.publicKey, publicRaw)) {
      throw new WebhookError('invalid_key', 'whsk_ key pair: the public half does not match the seed');
    }
    key = { kind: 'ed25519', privateKey, publicKey: ed25519PublicKey(publicRaw) };
  }
  return key;
}

function prepareKeys(secret: Secret | readonly Secret[] | undefined): readonly NodeKey[] {
  return secretList(secret).map(prepareKey);
}

/** The body as `hmac.update` takes it, without copying strings or Buffers. */
function bodyInput(body: RawBody): string | Uint8Array {
  return typeof body === 'string' ? body : toBytes(body);
}

function signWithKeys(keys: readonly NodeKey[], id: string, timestamp: number, body: RawBody): string {
  checkSignInput(id, timestamp);
  const prefix = signedPrefix(id, timestamp);
  const data = bodyInput(body);
  const out: string[] = [];
  let content: Buffer | undefined;
  for (const key of keys) {
    if (key.kind === 'hmac') {
      out.push(`v1,${createHmac('sha256', key.key).update(prefix).update(data).digest('base64')}`);
    } else if (key.privateKey !== undefined) {
      content ??= Buffer.concat([Buffer.from(prefix), Buffer.from(data)]);
      out.push(`v1a,${Buffer.from(ed25519Sign(key.privateKey, content)).toString('base64')}`);
    }
  }
  if (out.length === 0) {
    throw new WebhookError('invalid_key', 'No signing key: whpk_ public keys can only verify');
  }
  return out.join(' ');
}

function verifyWithKeys(
  keys: readonly NodeKey[],
  headers: unknown,
  body: RawBody,
  tolerance: Tolerance | undefined,
  now: (() => number) | undefined,
): VerifiedDelivery {
  const values = readStandardHeaders(headers);
  const timestamp = parseUnixSeconds(values.timestamp, values.names.timestamp);
  checkTimestamp(timestamp, { tolerance, now }, values.names.timestamp);
  const data = bodyInput(body);
  const prefix = signedPrefix(values.id, values.timestamp);
  if (isSingleV1Entry(values.signature)) {
    // The usual header: one v1 entry, compared in place (same verdict as the list below).
    for (const key of keys) {
      if (key.kind !== 'hmac') continue;
      const expected = createHmac('sha256', key.key).update(prefix).update(data).digest('base64');
      if (constantTimeEqualStringsAt(expected, values.signature, 3)) return { id: values.id, timestamp };
    }
    throw noMatch(values.names.signature);
  }
  const list = parseSignatureList(values.signature, values.names.signature);
  let content: Buffer | undefined;
  for (const key of keys) {
    if (key.kind === 'hmac') {
      if (list.v1.length === 0) continue;
      // Entries are canonical base64, so comparing the text equals comparing the bytes (and skips a decode).
      const expected = createHmac('sha256', key.key).update(prefix).update(data).digest('base64');
      for (const signature of list.v1) {
        if (constantTimeEqualStrings(expected, signature)) return { id: values.id, timestamp };
      }
    } else {
      for (const signature of list.v1a) {
        content ??= Buffer.concat([Buffer.from(prefix), Buffer.from(data)]);
        if (ed25519Verify(key.publicKey, Buffer.from(signature, 'base64'), content)) {
          return { id: values.id, timestamp };
        }
      }
    }
  }
  throw noMatch(values.names.signature);
}

export function signStandardWebhook(input: StandardSignInput): string {
  return signWithKeys(prepareKeys(input.secret), input.id, input.timestamp, input.body);
}

export function standardWebhookHeaders(
  input: StandardSignInput & { readonly headerPrefix?: HeaderPrefix },
): Record<string, string> {
  const names = headerNamesFor(input.headerPrefix);
  return {
    [names.id]: input.id,
    [names.timestamp]: String(input.timestamp),
    [names.signature]: signStandardWebhook(input),
  };
}

export function verifyStandardWebhook(input: StandardVerifyInput): VerifiedDelivery {
  try {
    return verifyWithKeys(prepareKeys(input.secret), input.headers, input.body, input.tolerance, input.now);
  } catch (error) {
    throw asVerificationError(error);
  }
}

/**
 * `standardWebhooks` for receivers and parsers: refuses a `whsk_` signing key (`invalid_key`), as the
 * Web verifier does; a receiver verifies `v1a` with the `whpk_` public key.
 */
export function standardWebhooksVerifier(options: SchemeOptions): SignatureScheme {
  refuseSigningKeys(options.secret);
  return standardWebhooks(options);
}

export function standardWebhooks(options: StandardWebhooksOptions): SignatureScheme {
  const keys = prepareKeys(options.secret);
  const names = headerNamesFor(options.headerPrefix);
  const { tolerance, now } = options;
  checkTolerance(tolerance);
  return {
    name: 'standard-webhooks',
    sign(input) {
      return {
        [names.id]: input.id,
        [names.timestamp]: String(input.timestamp),
        [names.signature]: signWithKeys(keys, input.id, input.timestamp, input.body),
      };
    },
    verify(input) {
      try {
        return verifyWithKeys(keys, input.headers, input.body, tolerance, now);
      } catch (error) {
        throw asVerificationError(error);
      }
    },
  };
}

/** A new random HMAC secret, `whsec_` + base64 of `byteLength` bytes (24–64 per the spec; default 32). */
export function generateStandardSecret(byteLength = 32): string {
  if (!Number.isInteger(byteLength) || byteLength < 24 || byteLength > 64) {
    throw new WebhookError('invalid_argument', 'byteLength must be an integer between 24 and 64');
  }
  return `whsec_${randomBytes(byteLength).toString('base64')}`;
}
