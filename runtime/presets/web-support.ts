/**
 * Helpers shared by the async (Web Crypto) presets: signature-text decoding, handshake answers,
 * batch bodies and dedupe keys. No `node:*` imports (crypto is in `web-crypto.ts`).
 */
import { toBytes } from '../bytes.js';
import { WebhookError } from '../errors.js';
import { decodeBase64, decodeCanonicalHex } from '../signing/encoding.js';
import type { RawBody, SignatureScheme } from '../signing/scheme.js';
import { asVerificationError } from '../signing/standard-webhooks-core.js';
import type { HandshakeResponse } from './types.js';
import { sha256Hex } from './web-crypto.js';

/** `<prefix><lower-case hex of length bytes>` → the bytes, else `undefined` (one spelling per MAC). */
export function prefixedHex(value: string, prefix: string, length: number): Uint8Array | undefined {
  if (!value.startsWith(prefix)) return undefined;
  const bytes = decodeCanonicalHex(value.slice(prefix.length));
  return bytes?.length === length ? bytes : undefined;
}

/** Canonical padded base64 of exactly `length` bytes, else `undefined`. */
export function base64Of(value: string, length: number): Uint8Array | undefined {
  const bytes = decodeBase64(value);
  return bytes?.length === length ? bytes : undefined;
}

/**
 * A plain-text echo (Twitch challenge, Meta `hub.challenge`, Graph `validationToken`). `nosniff`: the
 * echoed text comes from the request, so no browser may read it as HTML.
 */
export function textResponse(status: number, text: string): HandshakeResponse {
  return {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
    body: text,
  };
}

export function emptyResponse(
  status: number,
  headers: { readonly [name: string]: string } = {},
): HandshakeResponse {
  return { status, headers, body: '' };
}

/** A query parameter of the request URL (`undefined` when there is no URL or no such parameter). */
export function queryParam(url: string | undefined, name: string): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).searchParams.get(name) ?? undefined;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What a receiver dispatches for providers that post several events at once (Event Grid, HubSpot,
 * SendGrid, Okta, Microsoft Graph): `type` is the event's own type when the delivery carries one
 * event, `batch` when it carries several (their types may differ), so no event is dispatched to a
 * handler of another type and a `batch` handler sees every event.
 */
export function batchType(events: readonly unknown[], typeOf: (event: unknown) => unknown): string {
  if (events.length === 1) {
    const type = typeOf(events[0]);
    if (typeof type === 'string' && type !== '') return type;
  }
  return 'batch';
}

/**
 * The dedupe key of a delivery from its signed event ids: the id itself for one event, a SHA-256 of
 * the sorted ids for several (a batch is deduped as a whole), and the body's SHA-256 when some event
 * has no id.
 */
export async function deliveryKey(label: string, ids: readonly unknown[], body: RawBody): Promise<string> {
  const strings = ids.filter((id): id is string => typeof id === 'string' && id !== '');
  if (strings.length === ids.length && strings.length === 1) return strings[0] as string;
  if (strings.length === ids.length && strings.length > 1) {
    return `${label}-batch:${await sha256Hex([...strings].sort().join('\n'))}`;
  }
  return bodyKey(label, body);
}

/** `${label}:<SHA-256 of the raw body>`: for providers whose body carries no event id. */
export async function bodyKey(label: string, body: RawBody): Promise<string> {
  return `${label}:${await sha256Hex(toBytes(body))}`;
}

/** As `guardVerify`, for async schemes: only `WebhookError` leaves `verify`. */
export function guardAsync(scheme: SignatureScheme): SignatureScheme {
  return {
    name: scheme.name,
    sign: (input) => scheme.sign(input),
    async verify(input) {
      try {
        return await scheme.verify(input);
      } catch (error) {
        throw asVerificationError(error);
      }
    },
  };
}

/** The hook of a handshake failed: answered 500 so the provider retries it. */
export function hookFailed(name: string, cause: unknown): WebhookError {
  return new WebhookError('handler_failed', `The ${name} hook failed`, { cause });
}

/**
 * The public URL the provider called and signed (`preset.publicUrl`, else the request URL), for
 * Square and HubSpot; `invalid_config` naming the option when there is none.
 */
export function publicUrlOf(
  option: string | ((requestUrl: string | undefined) => string) | undefined,
  requestUrl: string | undefined,
  provider: string,
): string {
  let url: string | undefined;
  try {
    url = typeof option === 'function' ? option(requestUrl) : (option ?? requestUrl);
  } catch (cause) {
    if (cause instanceof WebhookError) throw cause;
    throw new WebhookError('invalid_config', `${provider}: the publicUrl option threw`, { cause });
  }
  if (typeof url !== 'string' || url === '') {
    throw new WebhookError(
      'invalid_config',
      `${provider}: the public URL the provider called is needed to verify (pass VerifyInput.url or the publicUrl option)`,
    );
  }
  return url;
}

type Preflight = NonNullable<import('./types.js').ProviderPreset['preflight']>;

/**
 * As `guardVerify`, for `preflight`: it reads request headers before any verification, so whatever a
 * header getter throws becomes a 401 `WebhookError`, never a 500.
 */
export function guardPreflight(preflight: Preflight): Preflight {
  return async (request, options) => {
    try {
      return await preflight(request, options);
    } catch (error) {
      throw asVerificationError(error);
    }
  };
}
