/**
 * The portal session lives in one cookie: the signed session token, HttpOnly (no script reads it),
 * SameSite=Strict (no other site's page can make the browser send it, so cross-site form posts arrive
 * signed out), scoped to the portal's path, Secure over HTTPS.
 */
import { newSessionId, signToken, type TokenClaims, verifyToken } from './token.js';

export const SESSION_COOKIE = 'gw_portal';

export interface Session {
  readonly tenant: string;
  readonly sid: string;
  readonly expiresAt: number;
}

export function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function readSession(key: Uint8Array, request: Request, now: number): Session | undefined {
  const claims = verifyToken(key, readCookie(request, SESSION_COOKIE), 'session', now);
  return claims
    ? { tenant: claims.tenant, sid: claims.sid as string, expiresAt: claims.expiresAt }
    : undefined;
}

export interface CookieOptions {
  readonly path: string;
  readonly secure: boolean;
}

/** A new session for the link's tenant, and the Set-Cookie that carries it. */
export function openSession(
  key: Uint8Array,
  link: TokenClaims,
  now: number,
  ttlMs: number,
  cookie: CookieOptions,
): { session: Session; setCookie: string } {
  const session: Session = { tenant: link.tenant, sid: newSessionId(), expiresAt: now + ttlMs };
  const token = signToken(key, { kind: 'session', ...session });
  return { session, setCookie: serialize(token, Math.floor(ttlMs / 1000), cookie) };
}

export function clearSessionCookie(cookie: CookieOptions): string {
  return serialize('', 0, cookie);
}

function serialize(value: string, maxAge: number, cookie: CookieOptions): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    `Path=${cookie.path}`,
    `Max-Age=${maxAge}`,
    'HttpOnly',
    'SameSite=Strict',
    ...(cookie.secure ? ['Secure'] : []),
  ].join('; ');
}
