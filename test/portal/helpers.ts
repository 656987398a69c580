/**
 * Fixtures of the portal tests: a multi-tenant SQLite outbox, a worker on a short schedule, the portal
 * served by node:http on 127.0.0.1, a receiver that fails until told to succeed, and magic links.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { createWorker, type DeliveryWorker } from '../../runtime/deliver/worker.js';
import type { VerificationOption } from '../../runtime/manage/verify-endpoint.js';
import { createPortalHandler } from '../../runtime/portal/handler.js';
import { createPortalLink } from '../../runtime/portal/link.js';
import { toNodeListener } from '../../runtime/portal/node-listener.js';
import { LOCAL, petContract, readBody, startServer, type TestServer, tempDir } from '../sender/helpers.js';

export const PORTAL_KEY = 'portal-test-key-0123456789abcdef-0123456789';

export const EXAMPLES = {
  'pet.adopted': { petId: 'pet_1', by: 'usr_1' },
  'pet.created': { petId: 'pet_2', name: 'Rex' },
};

export interface Receiver extends TestServer {
  /** Answer 2xx from now on (default: 503 with a body the portal shows as the response snippet). */
  succeed(ok: boolean): void;
  readonly received: string[];
}

export async function startReceiver(): Promise<Receiver> {
  let ok = false;
  const received: string[] = [];
  const server = await startServer(async (req, res) => {
    received.push((await readBody(req)).toString('utf8'));
    if (ok) res.end('thanks');
    else {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('receiver down for maintenance <b>bold</b>');
    }
  });
  return { ...server, received, succeed: (value) => (ok = value) };
}

export interface PortalFixture {
  readonly url: string;
  readonly base: string;
  readonly outbox: Outbox;
  readonly worker: DeliveryWorker;
  /** A link for `tenant` (expiring after `ttlMs`, signed with `key`). */
  link(tenant: string, options?: { ttlMs?: number; key?: string; now?: () => number }): string;
  close(): Promise<void>;
}

/**
 * `retry` default: a failed first attempt, then one retry 3 s later — long enough to see the next
 * retry on the page, short enough to see the delivery dead-lettered.
 */
export async function startPortal(
  options: { now?: () => number; retry?: readonly number[]; verification?: VerificationOption } = {},
): Promise<PortalFixture> {
  const dir = tempDir('portal');
  const outbox = sqliteOutbox(path.join(dir, 'outbox.db'), { tenancy: 'multi' });
  await outbox.init();
  const contract = petContract({ kind: 'list', delays: options.retry ?? [0, 3] });
  const worker = createWorker({ outbox, contract, urlPolicy: LOCAL, pollIntervalMs: 50, timeoutMs: 2000 });
  worker.start();
  const handler = createPortalHandler({
    outbox,
    contract,
    key: PORTAL_KEY,
    examples: EXAMPLES,
    descriptions: { 'pet.adopted': 'A pet found its home', 'pet.created': 'A pet was listed' },
    appName: 'Petstore webhooks',
    urlPolicy: LOCAL,
    onError: (error) => console.error(error),
    ...(options.now ? { now: options.now } : {}),
    ...(options.verification ? { verification: options.verification } : {}),
  });
  const server = http.createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const base = `${url}/webhooks/portal`;
  return {
    url,
    base,
    outbox,
    worker,
    link: (tenant, o = {}) =>
      createPortalLink({
        key: o.key ?? PORTAL_KEY,
        tenant,
        portalUrl: base,
        ...(o.ttlMs !== undefined ? { ttlMs: o.ttlMs } : {}),
        ...(o.now ? { now: o.now } : {}),
      }),
    async close() {
      await worker.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await outbox.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A cookie-keeping client of the portal over fetch (no browser), for the HTTP-level tests. */
export class PortalClient {
  cookie = '';
  constructor(readonly fixture: PortalFixture) {}

  async open(link: string): Promise<Response> {
    const response = await fetch(link, { redirect: 'manual' });
    const set = response.headers.getSetCookie()[0];
    if (set) this.cookie = set.split(';')[0] as string;
    return response;
  }

  get(pathname: string): Promise<Response> {
    return fetch(`${this.fixture.url}${pathname}`, { headers: { cookie: this.cookie }, redirect: 'manual' });
  }

  /** The CSRF token of the session, read from a page's form. */
  async csrf(): Promise<string> {
    const page = await (await this.get('/webhooks/portal/')).text();
    const match = /name="_csrf" value="([^"]+)"/.exec(page);
    if (!match) throw new Error('no CSRF field on the page');
    return match[1] as string;
  }

  async post(
    pathname: string,
    fields: Record<string, string | string[]>,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) {
      for (const v of Array.isArray(value) ? value : [value]) body.append(name, v);
    }
    return fetch(`${this.fixture.url}${pathname}`, {
      method: 'POST',
      headers: { cookie: this.cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: body.toString(),
      redirect: 'manual',
    });
  }
}

/** Waits until `check` returns a value (polling), or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
