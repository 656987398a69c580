/**
 * The endpoint management HTTP API as a Web-standard handler `(Request) => Promise<Response>`, so it
 * mounts in Hono, Next.js, Bun, Deno or node:http (via a Request adapter). Routes, under `basePath`
 * (default `/webhooks`):
 *
 *   POST   /webhooks                      { url, events, description?, rateLimit? } → 201 { id, secret, … }
 *   GET    /webhooks                      → 200 { data: [endpoint] }
 *   GET    /webhooks/{id}                 → 200 endpoint
 *   PATCH  /webhooks/{id}                 { url?, events?, description?, rateLimit? } → 200 endpoint
 *   DELETE /webhooks/{id}                 → 204
 *   POST   /webhooks/{id}/rotate-secret   { overlapSeconds? } → 200 { secret, previousSecretExpiresAt }
 *   POST   /webhooks/{id}/enable          → 200 endpoint
 *   POST   /webhooks/{id}/verify          → 200 endpoint | 422 endpoint_unverified (verification on)
 *   GET    /webhooks/{id}/deliveries      ?limit= → 200 { data: [attempt] }
 *   POST   /webhooks/{id}/redeliver       { messageId } | { from?, to? } → 202 { redelivered }
 *   GET    /webhooks/dead-letters         ?endpoint=&limit= → 200 { data: [delivery] } (every endpoint's)
 *
 * `authorize` is required and names the caller's tenant; every route sees that tenant's endpoints
 * only, and another tenant's id answers 404 like an unknown one.
 *
 * Errors are JSON `{ error: { code, message, details } }` with the `WebhookError` status.
 */
import type { AttemptRecord, Delivery } from '../deliver/outbox.js';
import { isWebhookError, WebhookError } from '../errors.js';
import type { KnownKeys } from '../known-options.js';
import { type Authorize, authenticate, requireAuthorize } from './authorize.js';
import {
  type BodySchema,
  readJsonBody,
  redeliverBody,
  registerBody,
  rotateBody,
  toMs,
  updateBody,
  withoutUndefined,
} from './bodies.js';
import {
  checkManagerOptions,
  type EndpointManagerOptions,
  MANAGER_SHARED_KEYS,
  managerFactory,
} from './endpoints.js';

export interface ManagementHandlerOptions extends Omit<EndpointManagerOptions, 'tenant'> {
  /** Path prefix of the routes. Default `/webhooks`. */
  readonly basePath?: string;
  /**
   * Required. Runs before every route and returns the caller as `{ tenant }` (the routes then act on
   * that tenant's endpoints only), `null`/`false` for a 401, or a `Response` to answer with (e.g. a
   * 403). Tests without auth pass `unsafeAllowAnyone()`.
   */
  readonly authorize: Authorize;
  /** Largest accepted request body. Default 64 KiB. */
  readonly maxBodyBytes?: number;
}

const HANDLER_KEYS = {
  ...MANAGER_SHARED_KEYS,
  basePath: true,
  authorize: true,
  maxBodyBytes: true,
} as const satisfies KnownKeys<ManagementHandlerOptions>;

export function createManagementHandler(
  options: ManagementHandlerOptions,
): (request: Request) => Promise<Response> {
  checkManagerOptions('createManagementHandler', options, HANDLER_KEYS);
  const authorize = requireAuthorize((options as { authorize?: unknown }).authorize);
  const managerFor = managerFactory(options);
  const base = (options.basePath ?? '/webhooks').replace(/\/+$/, '');
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;

  const readJson = <T>(request: Request, schema: BodySchema<T>, optional = false): Promise<T> =>
    readJsonBody(request, schema, maxBodyBytes, optional);

  const route = async (request: Request, tenant: string): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname !== base && !url.pathname.startsWith(`${base}/`)) return notFound();
    const parts = url.pathname
      .slice(base.length)
      .split('/')
      .filter((p) => p !== '')
      .map(decodeSegment);
    const method = request.method.toUpperCase();
    const [id, action, ...extra] = parts;
    if (extra.length > 0) return notFound();
    const manager = managerFor(tenant);

    if (id === undefined) {
      if (method === 'POST') {
        const body = await readJson(request, registerBody);
        const { endpoint, secret } = await manager.register(body);
        return json(201, { ...endpoint, secret }, { location: `${base}/${encodeURIComponent(endpoint.id)}` });
      }
      if (method === 'GET') return json(200, { data: await manager.list() });
      return notAllowed('GET, POST');
    }
    // Endpoint ids are `ep_…`: this name cannot be one.
    if (id === DEAD_LETTERS && action === undefined) {
      if (method !== 'GET') return notAllowed('GET');
      const endpointId = url.searchParams.get('endpoint') || undefined;
      if (endpointId !== undefined) await manager.get(endpointId); // another tenant's: 404
      const dead = await options.outbox.listDeliveries({
        tenant,
        status: 'dead',
        limit: limitOf(url),
        ...(endpointId !== undefined ? { endpointId } : {}),
      });
      return json(200, { data: dead.map(deliveryView) });
    }
    if (action === undefined) {
      if (method === 'GET') return json(200, await manager.get(id));
      if (method === 'PATCH') {
        const body = await readJson(request, updateBody);
        return json(200, await manager.update(id, withoutUndefined(body)));
      }
      if (method === 'DELETE') {
        await manager.remove(id);
        return new Response(null, { status: 204 });
      }
      return notAllowed('GET, PATCH, DELETE');
    }
    switch (action) {
      case 'rotate-secret': {
        if (method !== 'POST') return notAllowed('POST');
        const body = await readJson(request, rotateBody, true);
        return json(
          200,
          await manager.rotateSecret(
            id,
            body.overlapSeconds === undefined ? undefined : body.overlapSeconds * 1000,
          ),
        );
      }
      case 'enable':
        if (method !== 'POST') return notAllowed('POST');
        return json(200, await manager.enable(id));
      case 'verify':
        if (method !== 'POST') return notAllowed('POST');
        return json(200, await manager.verify(id));
      case 'deliveries': {
        if (method !== 'GET') return notAllowed('GET');
        return json(200, { data: (await manager.attempts(id, limitOf(url))).map(attemptView) });
      }
      case 'redeliver': {
        if (method !== 'POST') return notAllowed('POST');
        const body = await readJson(request, redeliverBody);
        const count = await manager.redeliver(
          id,
          'messageId' in body
            ? { messageId: body.messageId }
            : {
                ...(body.from !== undefined ? { from: toMs(body.from) } : {}),
                ...(body.to !== undefined ? { to: toMs(body.to) } : {}),
              },
        );
        return json(202, { redelivered: count });
      }
      default:
        return notFound();
    }
  };

  return async (request) => {
    try {
      const caller = await authenticate(authorize, request);
      if (caller instanceof Response) return caller;
      return await route(request, caller.tenant);
    } catch (error) {
      if (isWebhookError(error)) {
        return json(error.status, {
          error: { code: error.code, message: error.message, details: error.details },
        });
      }
      return json(500, { error: { code: 'internal_error', message: 'Internal error', details: {} } });
    }
  };
}

const DEAD_LETTERS = 'dead-letters';

/** A path segment, percent-decoded; a malformed escape is the caller's 400, not a thrown URIError (500). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new WebhookError('invalid_argument', 'The path has a malformed percent-escape', {
      details: { segment: segment.length > 200 ? `${segment.slice(0, 200)}…` : segment },
    });
  }
}

function limitOf(url: URL): number {
  const limitText = url.searchParams.get('limit');
  const limit = limitText === null ? 50 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
    throw new WebhookError('invalid_argument', 'limit must be an integer from 1 to 500');
  }
  return limit;
}

function deliveryView(d: Delivery) {
  return {
    id: d.id,
    messageId: d.messageId,
    endpointId: d.endpointId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts,
    lastError: d.lastError ?? null,
    createdAt: new Date(d.createdAt).toISOString(),
    finishedAt: d.finishedAt === undefined ? null : new Date(d.finishedAt).toISOString(),
  };
}

function attemptView(a: AttemptRecord) {
  return {
    id: a.id,
    deliveryId: a.deliveryId,
    messageId: a.messageId,
    attempt: a.attempt,
    outcome: a.outcome,
    statusCode: a.statusCode ?? null,
    errorCode: a.errorCode ?? null,
    error: a.error ?? null,
    responseSnippet: a.responseSnippet ?? null,
    durationMs: a.durationMs,
    startedAt: new Date(a.startedAt).toISOString(),
  };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

function notFound(): Response {
  return json(404, { error: { code: 'not_found', message: 'No such route', details: {} } });
}

function notAllowed(allow: string): Response {
  return new Response(
    JSON.stringify({ error: { code: 'method_not_allowed', message: `Use ${allow}`, details: {} } }),
    { status: 405, headers: { 'content-type': 'application/json; charset=utf-8', allow } },
  );
}
