/**
 * The magic link: what the provider's app creates for a signed-in customer (a button "Manage
 * webhooks" in its own settings page) and redirects them to. It opens a portal session for one
 * tenant and expires soon; the session it opens lasts `sessionTtlMs` of the handler.
 */
import { resolveTenant } from '../deliver/tenant.js';
import { WebhookError } from '../errors.js';
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import { type PortalKey, portalKey, signToken } from './token.js';

/** Default lifetime of a link: long enough to click it, short enough that a leaked one is stale. */
export const DEFAULT_LINK_TTL_MS = 10 * 60 * 1000;
const MAX_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export interface PortalLinkOptions {
  /** The portal's key (the same `key` as `createPortalHandler`'s). */
  readonly key: PortalKey;
  /** The tenant whose endpoints the portal shows; the caller's app has authenticated it. */
  readonly tenant: string;
  /** The portal's absolute URL, e.g. `https://api.example.com/webhooks/portal`. */
  readonly portalUrl: string;
  /** How long the link can be opened. Default 10 minutes, at most 7 days. */
  readonly ttlMs?: number;
  readonly now?: () => number;
}

const LINK_KEYS = {
  key: true,
  tenant: true,
  portalUrl: true,
  ttlMs: true,
  now: true,
} as const satisfies KnownKeys<PortalLinkOptions>;

/** `<portalUrl>/open?token=…`: opening it sets the session cookie and shows the tenant's endpoints. */
export function createPortalLink(options: PortalLinkOptions): string {
  checkKnownOptions('createPortalLink', options, LINK_KEYS);
  const key = portalKey(options.key, 'createPortalLink');
  const tenant = resolveTenant('multi', options.tenant, 'createPortalLink');
  const ttlMs = options.ttlMs ?? DEFAULT_LINK_TTL_MS;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0 || ttlMs > MAX_LINK_TTL_MS) {
    throw new WebhookError(
      'invalid_config',
      'createPortalLink: ttlMs must be a duration from 1 ms to 7 days',
      {
        details: { option: 'ttlMs' },
      },
    );
  }
  let url: URL;
  try {
    url = new URL(options.portalUrl);
  } catch {
    throw new WebhookError('invalid_config', 'createPortalLink: portalUrl must be an absolute URL', {
      details: { option: 'portalUrl' },
    });
  }
  const expiresAt = (options.now ?? Date.now)() + ttlMs;
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/open`;
  url.search = new URLSearchParams({ token: signToken(key, { kind: 'link', tenant, expiresAt }) }).toString();
  url.hash = '';
  return url.href;
}
