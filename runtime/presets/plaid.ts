/**
 * Plaid (https://plaid.com/docs/api/webhooks/webhook-verification/): `Plaid-Verification` is a JWT
 * signed with ES256 (refused unless `alg` is ES256) whose header `kid` names the key, fetched from
 * `/webhook_verification_key/get` (`preset.getKey`, or `plaidKeyFetcher` with the client id and
 * secret; cached per `kid` for an hour; a key with `expired_at` is refused). Its claims: `iat`, which
 * must be at most 5 minutes old, and `request_body_sha256`, the hex SHA-256 of the raw body (compared in
 * constant time). The body has no event id and a retry repeats it, so the key is the body's SHA-256.
 */
import { WebhookError } from '../errors.js';
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import { decodeBase64 } from '../signing/encoding.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { keyList } from '../signing/verification-key.js';
import { plaidWindow } from '../stores/retry-windows.js';
import { checkTimestamp, checkTolerance } from '../timestamp.js';
import { checkPresetOptions } from './preset-keys.js';
import { invalidSignature, malformed, parseJson, requireHeader, stringField } from './support.js';
import type { PlaidKey, PresetSchemeOptions, ProviderPreset } from './types.js';
import {
  derFromText,
  ecdsaP256Key,
  ecdsaP256Sign,
  ecdsaP256Verify,
  equalText,
  sha256Hex,
} from './web-crypto.js';
import { bodyKey, guardAsync, isRecord } from './web-support.js';

const HEADER = 'Plaid-Verification';
const KEY_CACHE_MS = 60 * 60 * 1000;

function base64UrlBytes(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const padded = text.replaceAll('-', '+').replaceAll('_', '/') + '='.repeat((4 - (text.length % 4)) % 4);
  return decodeBase64(padded);
}

function base64UrlText(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function jsonPart(text: string, what: string): Record<string, unknown> {
  const bytes = base64UrlBytes(text);
  let value: unknown;
  try {
    value =
      bytes === undefined ? undefined : JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    value = undefined;
  }
  if (!isRecord(value)) throw malformed(HEADER, `has no JSON ${what}`);
  return value;
}

const KEY_FETCHER_KEYS = { clientId: true, secret: true, environment: true } as const satisfies KnownKeys<
  Parameters<typeof plaidKeyFetcher>[0]
>;

/**
 * `getKey` for production: POST `/webhook_verification_key/get` with your client id and secret
 * (https://plaid.com/docs/api/webhooks/webhook-verification/#webhook_verification_keyget).
 */
export function plaidKeyFetcher(credentials: {
  readonly clientId: string;
  readonly secret: string;
  readonly environment?: 'production' | 'sandbox';
}): (kid: string) => Promise<PlaidKey> {
  checkKnownOptions('plaidKeyFetcher', credentials, KEY_FETCHER_KEYS);
  const host = `https://${credentials.environment ?? 'production'}.plaid.com`;
  return async (kid) => {
    const response = await fetch(`${host}/webhook_verification_key/get`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: credentials.clientId, secret: credentials.secret, key_id: kid }),
    });
    if (!response.ok) throw new WebhookError('invalid_signature', `Plaid has no verification key ${kid}`);
    const { key } = (await response.json()) as { key: PlaidKey };
    return key;
  };
}

export function plaidScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('plaid', options);
  // Without getKey, the Plaid API secret (`secret`) and `clientId` fetch keys from Plaid.
  const [apiSecret] = keyList(options.secret);
  const getKey =
    options.getKey ??
    (options.clientId !== undefined && typeof apiSecret === 'string' && apiSecret !== ''
      ? plaidKeyFetcher({
          clientId: options.clientId,
          secret: apiSecret,
          environment: options.environment ?? 'production',
        })
      : undefined);
  checkTolerance(options.tolerance);
  const now = options.now ?? Date.now;
  const cache = new Map<string, { at: number; key: Promise<CryptoKey> }>();
  const keyFor = (kid: string): Promise<CryptoKey> => {
    if (getKey === undefined) {
      throw new WebhookError(
        'invalid_config',
        'plaid: verification needs preset.getKey, or preset.clientId with the Plaid API secret as `secret`',
      );
    }
    const cached = cache.get(kid);
    if (cached !== undefined && now() - cached.at < KEY_CACHE_MS) return cached.key;
    const key = (async () => {
      const jwk = await getKey(kid);
      // "Reject expired keys" (Plaid's verification example).
      if (jwk.expired_at !== undefined && jwk.expired_at !== null) {
        throw new WebhookError('invalid_signature', `The Plaid verification key ${kid} has expired`);
      }
      return ecdsaP256Key(jwk);
    })();
    cache.set(kid, { at: now(), key });
    // A failed fetch is not cached: the next delivery asks again.
    key.catch(() => cache.delete(kid));
    return key;
  };
  const signingKey = options.signingKey;
  return guardAsync({
    name: 'plaid',
    async sign(input) {
      const pkcs8 = typeof signingKey === 'string' ? derFromText(signingKey) : signingKey;
      if (pkcs8 === undefined) {
        throw new WebhookError('invalid_config', 'plaid: signing needs the signingKey option (PKCS#8 P-256)');
      }
      const header = { alg: 'ES256', kid: options.keyId ?? 'test-key', typ: 'JWT' };
      const claims = { iat: input.timestamp, request_body_sha256: await sha256Hex(input.body) };
      const encode = (value: object) => base64UrlText(new TextEncoder().encode(JSON.stringify(value)));
      const signingInput = `${encode(header)}.${encode(claims)}`;
      return { [HEADER]: `${signingInput}.${base64UrlText(await ecdsaP256Sign(pkcs8, signingInput))}` };
    },
    async verify(input) {
      const token = requireHeader(input.headers, HEADER);
      const parts = token.split('.');
      if (parts.length !== 3) throw malformed(HEADER, 'must be a JWT (three dot-separated parts)');
      const [headerText, claimsText, signatureText] = parts as [string, string, string];
      const header = jsonPart(headerText, 'header');
      if (header['alg'] !== 'ES256') throw invalidSignature(HEADER);
      const kid = header['kid'];
      if (typeof kid !== 'string' || kid === '') throw malformed(HEADER, 'has no kid');
      const signature = base64UrlBytes(signatureText);
      if (signature?.length !== 64) throw malformed(HEADER, 'has no ES256 signature');
      const key = await keyFor(kid);
      if (!(await ecdsaP256Verify(key, signature, `${headerText}.${claimsText}`)))
        throw invalidSignature(HEADER);
      const claims = jsonPart(claimsText, 'claims');
      const iat = claims['iat'];
      if (typeof iat !== 'number' || !Number.isSafeInteger(iat))
        throw malformed(HEADER, 'has no numeric iat');
      checkTimestamp(iat, { tolerance: options.tolerance, now }, HEADER);
      const claimed = claims['request_body_sha256'];
      if (typeof claimed !== 'string' || !equalText(claimed, await sha256Hex(input.body))) {
        throw new WebhookError('invalid_signature', 'request_body_sha256 does not match the body', {
          details: { header: HEADER.toLowerCase() },
        });
      }
      return { timestamp: iat, id: await bodyKey('plaid', input.body) };
    },
  });
}

export const plaid: ProviderPreset<'plaid'> = {
  name: 'plaid',
  scheme: plaidScheme,
  signature: { kind: 'preset', preset: 'plaid' },
  // `{ webhook_type: 'TRANSACTIONS', webhook_code: 'SYNC_UPDATES_AVAILABLE', item_id, environment, … }`.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'webhook_type' },
  match: (event) => ({ body: event }),
  parseBody: (body) => parseJson(body),
  eventId: (_headers, _body, verified) => verified?.id,
  eventType(_headers, body) {
    const type = stringField(body, 'webhook_type');
    const code = stringField(body, 'webhook_code');
    return type === undefined ? undefined : code === undefined ? type : `${type}.${code}`;
  },
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: plaidWindow,
  declared: {
    idSigned: true,
    timestampSigned: true,
    handshakes: [],
  },
  defaultMode: 'inline',
  handshake: () => undefined,
};
