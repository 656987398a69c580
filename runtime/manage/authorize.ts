/**
 * Who is calling the management API. It fails closed: a handler without `authorize` is not built, and
 * `authorize` must name the caller's tenant, whose endpoints are then the only ones the call sees.
 * The only way around it is spelled `unsafeAllowAnyone`, so it stands out in review.
 */
import { DEFAULT_TENANT } from '../deliver/tenant.js';
import { WebhookError } from '../errors.js';

/** The authenticated caller: every route acts on this tenant's endpoints only. */
export interface Caller {
  readonly tenant: string;
}

/**
 * `{ tenant }` lets the request through as that tenant; `null`, `undefined` or `false` answers 401;
 * a `Response` (e.g. a 403) is answered as is. A thrown `WebhookError` answers with its status.
 */
export type AuthorizeResult = Caller | Response | null | undefined | false;
export type Authorize = (request: Request) => AuthorizeResult | Promise<AuthorizeResult>;

/**
 * For tests and local demos only: every request, from anyone, acts as `tenant` — including listing
 * its endpoints and rotating (and reading) their secrets. Never mount this on a reachable address.
 */
export function unsafeAllowAnyone(tenant: string = DEFAULT_TENANT): Authorize {
  const caller: Caller = { tenant };
  return () => caller;
}

/** Refuses to build an unauthenticated handler; the error names the opt-out. */
export function requireAuthorize(authorize: unknown): Authorize {
  if (typeof authorize !== 'function') {
    throw new WebhookError(
      'invalid_config',
      'createManagementHandler: `authorize` is required — a function (request) => { tenant } | null ' +
        'that authenticates the caller. For tests only: `authorize: unsafeAllowAnyone()`.',
      { details: { option: 'authorize' } },
    );
  }
  return authorize as Authorize;
}

/** The caller, or the response that ends the request (401, or the one `authorize` gave). */
export async function authenticate(authorize: Authorize, request: Request): Promise<Caller | Response> {
  const verdict = await authorize(request);
  if (verdict instanceof Response) return verdict;
  if (verdict === null || verdict === undefined || verdict === false) return unauthorized();
  const tenant = (verdict as Partial<Caller>).tenant;
  if (typeof verdict !== 'object' || typeof tenant !== 'string' || tenant === '') {
    // `true` was enough before tenants; it names no tenant now, so the request cannot go through.
    throw new WebhookError(
      'invalid_config',
      'authorize() must return the caller as { tenant: string } (or null / false for 401, or a Response)',
      {
        details: { option: 'authorize', returned: typeof verdict === 'object' ? 'object' : String(verdict) },
      },
    );
  }
  return { tenant };
}

function unauthorized(): Response {
  return new Response(
    JSON.stringify({ error: { code: 'unauthorized', message: 'Not authorized', details: {} } }),
    { status: 401, headers: { 'content-type': 'application/json; charset=utf-8' } },
  );
}
