/**
 * The portal session lives in one cookie: the signed session token, HttpOnly (no script reads it),
 * SameSite=Strict (no other site's page can make the browser send it, so cross-site form posts arrive
 * signed out), scoped to the portal's path, Secure over HTTPS. The token is stateless, so signing out
 * also stores a revocation of its session id in the outbox's database (until the token's expiry):
 * a copy of the cookie is refused afterwards by every portal instance on that database.
 */
import type { SessionRevocations } from '../deliver/outbox.js';
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

/** The request's session, unless it is missing, invalid, expired or signed out (revoked). */
export async function activeSession(
  key: Uint8Array,
  revocations: Pick<SessionRevocations, 'isSessionRevoked'>,
  request: Request,
  now: number,
): Promise<Session | undefined> {
  const session = readSession(key, request, now);
  if (!session) return undefined;
  // A store failure throws (an error page), never lets a possibly revoked session through.
  return (await revocations.isSessionRevoked(session.sid, now)) ? undefined : session;
}

/** Ends `session` on the server: the record lasts as long as the token would have. */
export function revokeSession(
  revocations: Pick<SessionRevocations, 'revokeSession'>,
  session: Session,
  now: number,
): Promise<void> {
  return revocations.revokeSession(session.sid, session.expiresAt, now);
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
