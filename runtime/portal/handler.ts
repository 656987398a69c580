/**
 * The delivery portal as a Web-standard handler `(Request) => Promise<Response>`: server-rendered
 * pages, no script, where a provider's customer manages their own endpoints — add, edit, disable,
 * rotate the secret, send a test event, see every delivery and its attempts, redeliver one or a
 * selection, and the dead letters. Mount it under `basePath` (default `/webhooks/portal`).
 *
 * Access is by magic link only (`createPortalLink`): opening one sets a signed session cookie for the
 * link's tenant, and every read and write goes through that tenant's scope, so another tenant's
 * endpoint or delivery id answers 404 exactly like an unknown one. Every form carries a CSRF token
 * derived from the session; posts without it, or from another site, are refused. Signing out revokes
 * the session in the outbox's database, so a copied cookie is refused from then on.
 */
import type { Contract, EventMapBase } from '../contract.js';
import type { Outbox } from '../deliver/outbox.js';
import { createSender, type Sender } from '../deliver/sender.js';
import type { UrlPolicy } from '../deliver/url-policy.js';
import { isWebhookError, WebhookError } from '../errors.js';
import type { KnownKeys } from '../known-options.js';
import { checkManagerOptions, managerFactory } from '../manage/endpoints.js';
import type { VerificationOption } from '../manage/verify-endpoint.js';
import { runAction } from './actions.js';
import { buildCatalog } from './catalog.js';
import type { Call, Outcome, PortalDeps } from './deps.js';
import { readForm } from './forms.js';
import { htmlResponse, SECURITY_HEADERS } from './layout.js';
import { renderPage } from './pages.js';
import { activeSession, clearSessionCookie, openSession, revokeSession } from './session.js';
import { checkCsrf, csrfToken, type PortalKey, portalKey, verifyToken } from './token.js';
import type { ViewContext } from './views/context.js';
import { errorPage, opening } from './views/messages.js';

/** Default lifetime of a portal session (the cookie), from opening the link. */
export const DEFAULT_SESSION_TTL_MS = 60 * 60 * 1000;

export interface PortalOptions<M extends EventMapBase = EventMapBase> {
  readonly outbox: Outbox;
  /** The catalog (event names, summaries), the secret format and what test events must match. */
  readonly contract: Contract<M>;
  /** Signs links, sessions and CSRF tokens; at least 32 bytes, kept secret, shared with `createPortalLink`. */
  readonly key: PortalKey;
  /** Default `/webhooks/portal`. */
  readonly basePath?: string;
  /** An example payload per event (e.g. the generated module's `fixtures`): shown, and sent as test events. */
  readonly examples?: { readonly [K in keyof M]?: M[K] };
  /** Longer descriptions than the contract's summaries, per event. */
  readonly descriptions?: { readonly [event: string]: string };
  /** Shown in the header and the titles. Default `Webhooks`. */
  readonly appName?: string;
  /** Default 1 hour. */
  readonly sessionTtlMs?: number;
  /** Mark the cookie `Secure`. Default: when the request URL is `https:`. */
  readonly secureCookie?: boolean;
  /** Registration rules (HTTPS only, the SSRF guard), as for the management API. */
  readonly urlPolicy?: UrlPolicy;
  readonly resolveOnRegister?: boolean;
  readonly rotationOverlapMs?: number;
  /** Endpoint verification before an endpoint is enabled, as for the management API (default `'none'`). */
  readonly verification?: VerificationOption;
  /** Largest accepted form. Default 64 KiB. */
  readonly maxBodyBytes?: number;
  /** Sends test events. Default `createSender(contract, { outbox })`. */
  readonly sender?: Sender<M>;
  /** Unexpected errors (the page says only "something went wrong"). Default `console.error`. */
  readonly onError?: (error: unknown) => void;
  readonly now?: () => number;
}

const PORTAL_KEYS = {
  outbox: true,
  contract: true,
  key: true,
  basePath: true,
  examples: true,
  descriptions: true,
  appName: true,
  sessionTtlMs: true,
  secureCookie: true,
  urlPolicy: true,
  resolveOnRegister: true,
  rotationOverlapMs: true,
  verification: true,
  maxBodyBytes: true,
  sender: true,
  onError: true,
  now: true,
} as const satisfies KnownKeys<PortalOptions>;

export function createPortalHandler<M extends EventMapBase>(
  options: PortalOptions<M>,
): (request: Request) => Promise<Response> {
  checkManagerOptions('createPortalHandler', options, PORTAL_KEYS);
  const key = portalKey(options.key, 'createPortalHandler');
  const base = normalizeBase(options.basePath ?? '/webhooks/portal');
  const appName = options.appName ?? 'Webhooks';
  const now = options.now ?? Date.now;
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;
  const onError = options.onError ?? ((error: unknown) => console.error('gen-webhooks portal:', error));
  const deps: PortalDeps = {
    outbox: options.outbox,
    managerFor: managerFactory({
      outbox: options.outbox,
      contract: options.contract,
      now,
      ...(options.urlPolicy ? { urlPolicy: options.urlPolicy } : {}),
      ...(options.resolveOnRegister !== undefined ? { resolveOnRegister: options.resolveOnRegister } : {}),
      ...(options.rotationOverlapMs !== undefined ? { rotationOverlapMs: options.rotationOverlapMs } : {}),
      ...(options.verification !== undefined ? { verification: options.verification } : {}),
    }),
    sender: options.sender ?? createSender(options.contract, { outbox: options.outbox, now }),
    catalog: buildCatalog(
      options.contract,
      options.examples as Record<string, unknown>,
      options.descriptions,
    ),
    now,
    verifies: (options.verification ?? 'none') !== 'none',
  };
  const cookieFor = (url: URL) => ({ path: base, secure: options.secureCookie ?? url.protocol === 'https:' });
  const fail = (status: number, title: string, text: string, ctx?: ViewContext) =>
    htmlResponse(status, errorPage(appName, base, title, text, ctx));

  const answer = (outcome: Outcome): Response =>
    outcome.kind === 'redirect'
      ? new Response(null, { status: 303, headers: { ...SECURITY_HEADERS, location: outcome.to } })
      : htmlResponse(outcome.status ?? 200, outcome.body);

  const serve = async (request: Request, url: URL, parts: string[]): Promise<Response> => {
    const method = request.method.toUpperCase();
    const at = now();
    if (parts.length === 1 && parts[0] === 'open') {
      if (method !== 'GET') return fail(405, 'Method not allowed', 'Open the link in your browser.');
      const link = verifyToken(key, url.searchParams.get('token'), 'link', at);
      if (!link) {
        return fail(
          401,
          'Link expired',
          'This portal link is invalid or has expired. Open the portal again from your account.',
        );
      }
      const { setCookie } = openSession(key, link, at, sessionTtlMs, cookieFor(url));
      // A page, not a redirect: a redirect at the end of a cross-site navigation (a link in an email)
      // would drop the SameSite=Strict cookie just set; the refresh is a same-site navigation.
      return htmlResponse(200, opening(appName, base), { 'set-cookie': setCookie });
    }
    // Signed-out sessions are refused like missing ones: the cookie alone is not the session.
    const session = await activeSession(key, options.outbox, request, at);
    if (!session) {
      return fail(
        401,
        'Signed out',
        'Your portal session has expired or is missing. Open the portal again from your account.',
      );
    }
    const ctx: ViewContext = {
      base,
      appName,
      tenant: session.tenant,
      csrf: csrfToken(key, session.sid),
      now: at,
    };
    const call: Call = { ctx, url, parts };
    try {
      if (method === 'GET') {
        const outcome = await renderPage(deps, call);
        return outcome ? answer(outcome) : fail(404, 'Not found', 'There is no such page.', ctx);
      }
      if (method !== 'POST') return fail(405, 'Method not allowed', 'Use the buttons of the portal.', ctx);
      const site = request.headers.get('sec-fetch-site');
      if (site === 'cross-site' || site === 'same-site') {
        return fail(403, 'Refused', 'This form was sent from another site.', ctx);
      }
      const form = await readForm(request, maxBodyBytes);
      if (!checkCsrf(key, session.sid, form.get('_csrf'))) {
        return fail(
          403,
          'Form expired',
          'This form is from another session. Reload the page and try again.',
          ctx,
        );
      }
      if (parts.length === 1 && parts[0] === 'logout') {
        // Stored before the answer: a failure is an error page, not a sign-out that did not happen.
        await revokeSession(options.outbox, session, at);
        return htmlResponse(
          200,
          errorPage(appName, base, 'Signed out', 'You have signed out of the webhook portal.'),
          { 'set-cookie': clearSessionCookie(cookieFor(url)) },
        );
      }
      const outcome = await runAction(deps, call, form);
      return outcome ? answer(outcome) : fail(404, 'Not found', 'There is no such page.', ctx);
    } catch (error) {
      if (isWebhookError(error, 'not_found')) {
        return fail(404, 'Not found', 'It does not exist, or it is not yours.', ctx);
      }
      if (isWebhookError(error) && error.status < 500)
        return fail(error.status, 'Not possible', error.message, ctx);
      onError(error);
      return fail(500, 'Something went wrong', 'The portal could not do that. Try again in a moment.', ctx);
    }
  };

  return async (request) => {
    let url: URL;
    let parts: string[];
    try {
      url = new URL(request.url);
      if (url.pathname !== base && !url.pathname.startsWith(`${base}/`))
        throw new WebhookError('not_found', '');
      parts = url.pathname
        .slice(base.length)
        .split('/')
        .filter((p) => p !== '')
        .map(decodeURIComponent);
    } catch {
      return fail(404, 'Not found', 'There is no such page.');
    }
    try {
      return await serve(request, url, parts);
    } catch (error) {
      onError(error);
      return fail(500, 'Something went wrong', 'The portal could not do that. Try again in a moment.');
    }
  };
}

function normalizeBase(basePath: string): string {
  const base = basePath.replace(/\/+$/, '');
  if (!base.startsWith('/') || /[?#]/.test(base)) {
    throw new WebhookError(
      'invalid_config',
      'createPortalHandler: basePath must be a path such as /webhooks/portal',
      {
        details: { option: 'basePath' },
      },
    );
  }
  return base;
}
