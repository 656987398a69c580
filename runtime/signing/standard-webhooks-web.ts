/**
 * Standard Webhooks on Web Crypto: the same inputs, outputs and errors as `standard-webhooks.ts`
 * (node:crypto), asynchronous. Imports no `node:*` module.
 *
 * Exports: `signStandardWebhookWeb(input)`, `verifyStandardWebhookWeb(input)`,
 * `standardWebhooksWeb(options)`, `standardWebhooksVerifierWeb(options)` (verify only),
 * `generateStandardSecretWeb()`, `generateEd25519KeyPairWeb()`.
 */
import { toBytes } from '../bytes.js';
import { WebhookError } from '../errors.js';
import { checkTimestamp, checkTolerance, parseUnixSeconds, type Tolerance } from '../timestamp.js';
import { concatBytes, constantTimeEqual, decodeBase64, encodeBase64, utf8 } from './encoding.js';
import type {
  RawBody,
  SchemeOptions,
  SchemeVerifier,
  Secret,
  SignatureScheme,
  VerifiedDelivery,
} from './scheme.js';
import {
  asVerificationError,
  checkSignInput,
  createKeyCache,
  decodeStandardKey,
  decodeVerificationKey,
  type HeaderPrefix,
  headerNamesFor,
  noMatch,
  parseSignatureList,
  readStandardHeaders,
  type StandardKey,
  type StandardSignInput,
  type StandardVerifyInput,
  secretList,
  signedPrefix,
} from './standard-webhooks-core.js';
import {
  decodeBase64Url,
  importEd25519,
  importEd25519Public,
  importHmacKey,
  lazy,
  macWith,
  subtle,
  view,
} from './web-crypto.js';

type WebKey =
  | { readonly kind: 'hmac'; readonly key: () => Promise<CryptoKey> }
  | {
      readonly kind: 'ed25519';
      readonly publicKey: () => Promise<CryptoKey>;
      readonly privateKey?: () => Promise<CryptoKey>;
    };

// Pure: a verifier decodes its keys once and never reaches the cache, so a receiver bundle drops it.
const cachedKey = /* @__PURE__ */ createKeyCache<WebKey>();

function prepareKey(secret: Secret): WebKey {
  return cachedKey(secret, decodeKey);
}

function decodeKey(secret: Secret): WebKey {
  const decoded = decodeStandardKey(secret);
  if (decoded.kind !== 'ed25519-secret') return verifierKey(decoded);
  const pair = lazy(() => importEd25519(decoded.seed, decoded.publicKey));
  return {
    kind: 'ed25519',
    publicKey: async () => (await pair()).publicKey,
    privateKey: async () => (await pair()).privateKey,
  };
}

/** A key that verifies only: HMAC (`v1`) or an Ed25519 public key (`v1a`). */
function verifierKey(decoded: Exclude<StandardKey, { kind: 'ed25519-secret' }>): WebKey {
  if (decoded.kind === 'hmac') {
    const bytes = decoded.bytes;
    return { kind: 'hmac', key: lazy(() => importHmacKey('sha256', bytes)) };
  }
  const raw = decoded.publicKey;
  return { kind: 'ed25519', publicKey: lazy(() => importEd25519Public(raw)) };
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

function verifierWith(keys: readonly WebKey[], options: SchemeOptions): SchemeVerifier {
  const { tolerance, now } = options;
  checkTolerance(tolerance);
  return {
    name: 'standard-webhooks',
    async verify(input) {
      try {
        return await verifyWithKeys(keys, input.headers, input.body, tolerance, now);
      } catch (error) {
        throw asVerificationError(error);
      }
    },
  };
}

/**
 * The verifying half of `standardWebhooksWeb`, for receivers: a bundle that only verifies carries no
 * signing code. Checks the secrets and the tolerance as `standardWebhooksWeb` does, and refuses a
 * `whsk_` signing key (`invalid_key`) as every receiver does: a receiver verifies with `whpk_`.
 */
export function standardWebhooksVerifierWeb(options: SchemeOptions): SchemeVerifier {
  // Decoded once here for the verifier's life: the key cache serves the per-call functions. A whsk_
  // signing key is refused, so this carries no code that derives a public key from a seed.
  return verifierWith(
    secretList(options.secret).map((secret) => verifierKey(decodeVerificationKey(secret))),
    options,
  );
}

export function standardWebhooksWeb(
  options: SchemeOptions & { readonly headerPrefix?: HeaderPrefix },
): SignatureScheme {
  const keys = prepareKeys(options.secret);
  const names = headerNamesFor(options.headerPrefix);
  return {
    ...verifierWith(keys, options),
    async sign(input) {
      return {
        [names.id]: input.id,
        [names.timestamp]: String(input.timestamp),
        [names.signature]: await signWithKeys(keys, input.id, input.timestamp, input.body),
      };
    },
  };
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
