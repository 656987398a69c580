/**
 * The Petstore as a webhook provider, on one SQLite database: its business API (pets, adoptions),
 * the endpoint registration API for its tenants (HTTPS-only endpoints), the delivery workers on the
 * contract's schedule, the dead-letter listing, and the delivery portal its customers open through a
 * magic link. Tenants authenticate with an API key (`Authorization: Bearer <key>`).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createManagementHandler,
  createPortalHandler,
  createPortalLink,
  createWorker,
  type DeliveryWorker,
  type DestinationFactory,
  isWebhookError,
  sqliteOutbox,
  toNodeListener,
  type UrlPolicy,
} from '@gen-webhooks/runtime';
import Database from 'better-sqlite3';
import { fixtures } from '../../generated/petstore-openapi/fixtures.js';
import { contract, createSender } from '../../generated/petstore-openapi/index.js';
import { Conflict, createShop } from './shop.js';

/** One attempt's deadline; the retry schedule is the contract's (`x-gen-webhooks.retry`). */
export const ATTEMPT_TIMEOUT_MS = 5000;
export const WORKERS = 2;

export interface ProviderOptions {
  /** The SQLite file (business tables and the outbox); default in memory. */
  readonly database?: string;
  readonly port?: number;
  /** API key → tenant. */
  readonly apiKeys: Readonly<Record<string, string>>;
  /** Signs portal links and sessions (≥ 32 bytes). */
  readonly portalKey: string;
  /**
   * Development only: accept `http://127.0.0.1` endpoints (a customer app on this machine). Without
   * it, endpoints must be HTTPS on public addresses.
   */
  readonly allowLocalHttp?: boolean;
  /**
   * Broker destinations customers may register besides HTTPS endpoints, e.g.
   * `[amqpDestination(amqplib), natsDestination(nats)]` (`amqp://…?routingKey=…`, `nats://…?subject=…`).
   */
  readonly destinations?: readonly DestinationFactory[];
  readonly log?: (line: string) => void;
}

export interface Provider {
  readonly url: string;
  portalLink(tenant: string): string;
  close(): Promise<void>;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });

export async function startProvider(options: ProviderOptions): Promise<Provider> {
  const log = options.log ?? console.log;
  const db = new Database(options.database ?? ':memory:');
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  // One connection for the business writes and the outbox: the transaction they share is this one.
  const outbox = sqliteOutbox(db, { tenancy: 'multi' });
  await outbox.init();
  const sender = createSender({ outbox });
  const shop = createShop(db, sender);
  const urlPolicy: UrlPolicy | undefined = options.allowLocalHttp
    ? { allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] }
    : undefined;
  const policy = urlPolicy ? { urlPolicy } : {};

  const tenantOf = (request: Request): string | undefined => {
    const key = request.headers.get('authorization')?.replace(/^Bearer\s+/i, '') ?? '';
    return Object.hasOwn(options.apiKeys, key) ? options.apiKeys[key] : undefined;
  };
  const management = createManagementHandler({
    outbox,
    contract,
    ...policy,
    authorize: (request) => {
      const tenant = tenantOf(request);
      return tenant ? { tenant } : null;
    },
  });
  const portal = createPortalHandler({
    outbox,
    contract,
    key: options.portalKey,
    examples: fixtures,
    appName: 'Petstore webhooks',
    sender,
    ...policy,
  });
  const workers: DeliveryWorker[] = Array.from({ length: WORKERS }, () =>
    createWorker({
      outbox,
      contract,
      timeoutMs: ATTEMPT_TIMEOUT_MS,
      ...policy,
      ...(options.destinations ? { destinations: options.destinations } : {}),
      deadLetterThreshold: 10,
      onDeadLetterThreshold: ({ endpoint, threshold }) =>
        log(
          `dead letters: endpoint ${endpoint.id} (${endpoint.tenant}) has ${threshold} or more — see the portal`,
        ),
      onEndpointDisabled: (endpoint, reason) =>
        log(`endpoint ${endpoint.id} (${endpoint.tenant}) disabled: ${reason}`),
      onAttempt: ({ delivery, attempt, resolution }) =>
        log(
          `→ ${delivery.eventType} ${delivery.messageId} to ${delivery.endpoint.url}: ${attempt.status ?? attempt.classification.code} (${resolution.kind})`,
        ),
    }),
  );

  let portalUrl = '';
  const portalLink = (tenant: string) => createPortalLink({ key: options.portalKey, tenant, portalUrl });

  const app = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const path = url.pathname;
    if (path === '/webhooks/portal' || path.startsWith('/webhooks/portal/')) return portal(request);
    if (path === '/webhooks' || path.startsWith('/webhooks/')) return management(request);
    const tenant = tenantOf(request);
    if (!tenant)
      return json(401, { error: { code: 'unauthorized', message: 'Send Authorization: Bearer <API key>' } });
    if (path === '/portal-links' && request.method === 'POST') return json(201, { url: portalLink(tenant) });
    if (path === '/pets' && request.method === 'GET') return json(200, { data: shop.list(tenant) });
    if (path === '/pets' && request.method === 'POST') {
      const body = (await request.json().catch(() => ({}))) as { name?: unknown };
      if (typeof body.name !== 'string' || body.name === '')
        return json(400, { error: { code: 'invalid_body', message: 'name is required' } });
      return json(201, shop.add(tenant, body.name));
    }
    const adopt = /^\/pets\/(\d+)\/adopt$/.exec(path);
    if (adopt && request.method === 'POST') {
      const body = (await request.json().catch(() => ({}))) as { userId?: string; notes?: string };
      try {
        return json(200, await shop.adopt(tenant, Number(adopt[1]), body));
      } catch (error) {
        if (error instanceof Conflict)
          return json(409, { error: { code: 'conflict', message: error.message } });
        if (isWebhookError(error)) return json(error.status, { error: error.toJSON() });
        throw error;
      }
    }
    return json(404, { error: { code: 'not_found', message: 'No such route' } });
  };

  const server = http.createServer(toNodeListener(app));
  await new Promise<void>((resolve) => server.listen(options.port ?? 3000, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  portalUrl = `${url}/webhooks/portal`;
  for (const tenant of new Set(Object.values(options.apiKeys))) {
    if (shop.list(tenant).length === 0) for (const name of ['Rex', 'Mia', 'Tom']) shop.add(tenant, name);
  }
  for (const worker of workers) worker.start();
  return {
    url,
    portalLink,
    async close() {
      await Promise.all(workers.map((w) => w.stop()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      db.close();
    },
  };
}
