/**
 * The portal's signed tokens: `<base64url(JSON claims)>.<base64url(HMAC-SHA256)>` under a key only the
 * provider holds. Two kinds: a `link` (what the provider's app hands a customer; short-lived) and a
 * `session` (what opening a link sets as the cookie; carries a random session id that the CSRF token
 * is derived from). A token names exactly one tenant; nothing else in a request can widen it.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { WebhookError } from '../errors.js';

export type PortalKey = string | Uint8Array;

export interface TokenClaims {
  readonly kind: 'link' | 'session';
  readonly tenant: string;
  /** Expiry, ms since the epoch. */
  readonly expiresAt: number;
  /** Session id (sessions only). */
  readonly sid?: string;
}

/** Below this a key could be guessed offline from one link: 256 bits, as for HMAC endpoint secrets. */
export const MIN_KEY_BYTES = 32;
const MAX_TOKEN_LENGTH = 2048;
const DOMAIN = 'gen-webhooks-portal.v1.';
const encoder = new TextEncoder();

/** The key as bytes; refuses a short or missing one (every link would be forgeable). */
export function portalKey(key: unknown, where: string): Uint8Array {
  const bytes = typeof key === 'string' ? encoder.encode(key) : key instanceof Uint8Array ? key : undefined;
  if (!bytes || bytes.byteLength < MIN_KEY_BYTES) {
    throw new WebhookError(
      'invalid_config',
      `${where}: \`key\` must be a secret of at least ${MIN_KEY_BYTES} bytes (e.g. randomBytes(32).toString('base64url'))`,
      { details: { option: 'key' } },
    );
  }
  return bytes;
}

const mac = (key: Uint8Array, label: string, text: string): Buffer =>
  createHmac('sha256', key).update(DOMAIN).update(label).update('.').update(text).digest();

export function signToken(key: Uint8Array, claims: TokenClaims): string {
  const body = Buffer.from(
    JSON.stringify({
      k: claims.kind,
      t: claims.tenant,
      e: claims.expiresAt,
      ...(claims.sid ? { s: claims.sid } : {}),
    }),
  ).toString('base64url');
  return `${body}.${mac(key, 'token', body).toString('base64url')}`;
}

/**
 * The claims of a valid, unexpired token of `kind`, or `undefined` for anything else (malformed,
 * tampered, another kind, expired). The signature is compared in constant time before the claims are
 * even parsed.
 */
export function verifyToken(
  key: Uint8Array,
  token: string | null | undefined,
  kind: TokenClaims['kind'],
  now: number,
): TokenClaims | undefined {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return undefined;
  const dot = token.indexOf('.');
  if (dot <= 0 || dot !== token.lastIndexOf('.')) return undefined;
  const body = token.slice(0, dot);
  if (!sameText(token.slice(dot + 1), mac(key, 'token', body).toString('base64url'))) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const c = raw as { k?: unknown; t?: unknown; e?: unknown; s?: unknown };
  if (typeof raw !== 'object' || raw === null || c.k !== kind) return undefined;
  if (typeof c.t !== 'string' || c.t === '' || typeof c.e !== 'number' || !(c.e > now)) return undefined;
  if (kind === 'session' && (typeof c.s !== 'string' || c.s === '')) return undefined;
  return { kind, tenant: c.t, expiresAt: c.e, ...(typeof c.s === 'string' ? { sid: c.s } : {}) };
}

export function newSessionId(): string {
  return randomBytes(18).toString('base64url');
}

/** The CSRF token of a session: derived, so nothing is stored, and useless with any other session. */
export function csrfToken(key: Uint8Array, sid: string): string {
  return mac(key, 'csrf', sid).toString('base64url');
}

export function checkCsrf(key: Uint8Array, sid: string, given: string | null | undefined): boolean {
  return typeof given === 'string' && sameText(given, csrfToken(key, sid));
}

/**
 * Constant-time equality of the texts themselves: decoding base64url first would accept other
 * spellings of the same bytes (Node skips characters outside the alphabet).
 */
function sameText(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.byteLength === b.byteLength && timingSafeEqual(a, b);
}
