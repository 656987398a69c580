/**
 * Endpoint verification against real receivers on 127.0.0.1: the signed challenge event and the
 * CloudEvents OPTIONS handshake, on SQLite and PostgreSQL, through the manager and the HTTP API.
 */
import type http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { isWebhookError, type WebhookError } from '../../runtime/errors.js';
import { unsafeAllowAnyone } from '../../runtime/manage/authorize.js';
import { createEndpointManager, type EndpointManager } from '../../runtime/manage/endpoints.js';
import { createManagementHandler } from '../../runtime/manage/handler.js';
import type { VerificationOption } from '../../runtime/manage/verify-endpoint.js';
import { createSignatureScheme } from '../../runtime/signing/resolve.js';
import { LOCAL, outboxFixtures, petContract, readBody, startServer, type TestServer } from './helpers.js';

interface Seen {
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const ORIGIN = 'webhooks.pets.test';

type ApiBody = Record<string, unknown> & { error?: { details: { endpoint: { id: string } } } };

describe.each(outboxFixtures)('endpoint verification on $name', (fixture) => {
  let outbox: Outbox;
  let cleanup: () => Promise<void>;
  const servers: TestServer[] = [];
  const contract = petContract({ kind: 'list', delays: [0] });

  beforeEach(async () => {
    if (fixture.skip) return;
    const made = await fixture.create('verify');
    outbox = made.outbox;
    cleanup = made.cleanup;
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
    if (!fixture.skip) await cleanup();
  });

  /** A receiver that records every request and answers with `answer`. */
  const receiver = async (answer: (seen: Seen, res: http.ServerResponse) => void) => {
    const seen: Seen[] = [];
    const server = await startServer(async (req, res) => {
      const entry = {
        method: req.method ?? '',
        headers: req.headers,
        body: (await readBody(req)).toString(),
      };
      seen.push(entry);
      answer(entry, res);
    });
    servers.push(server);
    return { url: `${server.url}/hook`, seen };
  };
  const challengeOf = (seen: Seen) =>
    (JSON.parse(seen.body) as { data: { challenge: string } }).data.challenge;
  const managerWith = (verification: VerificationOption) =>
    createEndpointManager({ outbox, contract, urlPolicy: LOCAL, verification });
  const unverified = async (promise: Promise<unknown>): Promise<WebhookError> => {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!isWebhookError(error, 'endpoint_unverified'))
      throw new Error(`expected endpoint_unverified, got ${String(error)}`);
    expect(error.status).toBe(422);
    return error;
  };

  it.skipIf(fixture.skip)('an endpoint that echoes the signed challenge is enabled', async () => {
    const r = await receiver((seen, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ challenge: challengeOf(seen) }));
    });
    const { endpoint, secret } = await managerWith('event').register({ url: r.url, events: ['pet.adopted'] });
    expect(endpoint.enabled).toBe(true);
    expect(r.seen).toHaveLength(1);
    const [request] = r.seen as [Seen];
    expect(request.method).toBe('POST');
    const body = JSON.parse(request.body) as { type: string; data: { challenge: string } };
    expect(body.type).toBe('webhook.verification');
    expect(body.data.challenge).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // Signed with the endpoint's new secret, verifiable with the runtime's own verifier.
    const scheme = createSignatureScheme({ kind: 'standard-webhooks' }, { secret });
    await expect(
      Promise.resolve(
        scheme.verify({ headers: request.headers as Record<string, string>, body: request.body }),
      ),
    ).resolves.toMatchObject({ id: expect.stringMatching(/^msg_/) });
    const other = createSignatureScheme({ kind: 'standard-webhooks' }, { secret: 'whsec_' + 'A'.repeat(32) });
    await expect(
      Promise.resolve().then(() =>
        other.verify({ headers: request.headers as Record<string, string>, body: request.body }),
      ),
    ).rejects.toMatchObject({ code: 'invalid_signature' });
    expect((await outbox.getEndpoint(endpoint.id))?.enabled).toBe(true);
  });

  it.skipIf(fixture.skip)('the bare challenge as text/plain acknowledges too', async () => {
    const r = await receiver((seen, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${challengeOf(seen)}\n`);
    });
    const { endpoint } = await managerWith('event').register({ url: r.url, events: ['*'] });
    expect(endpoint.enabled).toBe(true);
  });

  it.skipIf(fixture.skip)(
    'a 200 without the challenge leaves it disabled (422); verify retries',
    async () => {
      let echo = false;
      const r = await receiver((seen, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(echo ? JSON.stringify({ challenge: challengeOf(seen) }) : '{"ok":true}');
      });
      const manager = managerWith('event');
      const error = await unverified(manager.register({ url: r.url, events: ['pet.adopted'] }));
      expect(error.details).toMatchObject({
        status: 200,
        endpoint: { enabled: false, disabledReason: 'unverified' },
      });
      expect(error.details.secret).toMatch(/^whsec_/);
      const id = (error.details.endpoint as { id: string }).id;
      const stored = await outbox.getEndpoint(id);
      expect(stored).toMatchObject({ enabled: false, disabledReason: 'unverified' });

      // No deliveries go out while unverified: a send is queued, nothing is claimed.
      const sender = createSender(contract, { outbox });
      await sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
      expect(await outbox.claim({ owner: 'w', now: Date.now() + 60_000, leaseMs: 1000, limit: 10 })).toEqual(
        [],
      );

      // Enabling by hand verifies first and still refuses; a fixed receiver then verifies.
      await unverified(manager.enable(id));
      expect((await outbox.getEndpoint(id))?.enabled).toBe(false);
      echo = true;
      await expect(manager.verify(id)).resolves.toMatchObject({ enabled: true, disabledReason: null });
      expect(r.seen).toHaveLength(3);
      // The retried request is signed with the stored secret.
      const scheme = createSignatureScheme(
        { kind: 'standard-webhooks' },
        { secret: error.details.secret as string },
      );
      const last = r.seen[2] as Seen;
      await scheme.verify({ headers: last.headers as Record<string, string>, body: last.body });
    },
  );

  it.skipIf(fixture.skip)('an endpoint that does not answer in time stays disabled', async () => {
    const r = await receiver(() => {
      // never answers
    });
    const manager = managerWith({ mode: 'event', timeoutMs: 300 });
    const error = await unverified(manager.register({ url: r.url, events: ['pet.adopted'] }));
    expect(error.details.status).toBeNull();
    expect(error.message).toMatch(/timeout/);
    expect(error.details.endpoint).toMatchObject({ enabled: false, disabledReason: 'unverified' });
  });

  it.skipIf(fixture.skip)('a non-2xx answer is refused with the status', async () => {
    const r = await receiver((seen, res) => {
      res.writeHead(404);
      res.end(JSON.stringify({ challenge: challengeOf(seen) }));
    });
    const error = await unverified(managerWith('event').register({ url: r.url, events: ['pet.adopted'] }));
    expect(error.details.status).toBe(404);
  });

  it.skipIf(fixture.skip)(
    'a CloudEvents receiver answering the OPTIONS handshake is enabled, its rate applied',
    async () => {
      const r = await receiver((seen, res) => {
        res.writeHead(200, {
          'webhook-allowed-origin': seen.headers['webhook-request-origin'] as string,
          'webhook-allowed-rate': '120',
        });
        res.end();
      });
      const manager = managerWith({ mode: 'cloudevents', origin: ORIGIN, requestRate: 600 });
      const { endpoint } = await manager.register({ url: r.url, events: ['pet.adopted'], rateLimit: 50 });
      expect(endpoint).toMatchObject({ enabled: true, rateLimit: 2 });
      expect(r.seen).toHaveLength(1);
      expect(r.seen[0]).toMatchObject({
        method: 'OPTIONS',
        headers: { 'webhook-request-origin': ORIGIN, 'webhook-request-rate': '600' },
        body: '',
      });
    },
  );

  it.skipIf(fixture.skip)(
    'a CloudEvents receiver answering * is enabled; a wrong or missing origin is not',
    async () => {
      let allowed: string | undefined = '*';
      const r = await receiver((_seen, res) => {
        res.writeHead(200, allowed === undefined ? {} : { 'webhook-allowed-origin': allowed });
        res.end();
      });
      const manager = managerWith({ mode: 'cloudevents', origin: ORIGIN });
      expect((await manager.register({ url: r.url, events: ['*'] })).endpoint).toMatchObject({
        enabled: true,
        rateLimit: null,
      });
      allowed = undefined;
      const missing = await unverified(manager.register({ url: r.url, events: ['*'] }));
      expect(missing.details).toMatchObject({ status: 200, header: 'webhook-allowed-origin' });
      expect(missing.details.endpoint).toMatchObject({ enabled: false, disabledReason: 'unverified' });
      allowed = 'someone-else.test';
      await unverified(manager.register({ url: r.url, events: ['*'] }));
    },
  );

  it.skipIf(fixture.skip)('a URL the policy refuses fails before any request', async () => {
    const r = await receiver((seen, res) => {
      res.writeHead(200);
      res.end(JSON.stringify({ challenge: challengeOf(seen) }));
    });
    // The default policy: plain http and loopback are refused.
    for (const verification of ['event', { mode: 'cloudevents', origin: ORIGIN }] as const) {
      const manager = createEndpointManager({ outbox, contract, verification });
      await expect(manager.register({ url: r.url, events: ['*'] })).rejects.toMatchObject({
        code: 'insecure_url',
      });
      const https = r.url.replace('http:', 'https:');
      await expect(manager.register({ url: https, events: ['*'] })).rejects.toMatchObject({
        code: 'blocked_address',
      });
    }
    expect(r.seen).toHaveLength(0);
    expect(await outbox.listEndpoints()).toEqual([]);
  });

  it.skipIf(fixture.skip)('a PATCH to a new URL is verified before it is stored', async () => {
    const good = await receiver((seen, res) => {
      res.writeHead(200);
      res.end(challengeOf(seen));
    });
    const bad = await receiver((_seen, res) => {
      res.writeHead(200);
      res.end('ok');
    });
    const manager: EndpointManager = managerWith('event');
    const { endpoint } = await manager.register({ url: good.url, events: ['*'] });
    await unverified(manager.update(endpoint.id, { url: bad.url }));
    expect((await manager.get(endpoint.id)).url).toBe(good.url);
    expect(bad.seen).toHaveLength(1);
    await expect(
      manager.update(endpoint.id, { description: 'no URL change, no request' }),
    ).resolves.toMatchObject({
      url: good.url,
    });
    expect(good.seen).toHaveLength(1);
  });

  it.skipIf(fixture.skip)(
    'through the management HTTP API: 201 enabled, 422 unverified, POST verify',
    async () => {
      let echo = true;
      const r = await receiver((seen, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(echo ? JSON.stringify({ challenge: challengeOf(seen) }) : '{}');
      });
      const handler = createManagementHandler({
        outbox,
        contract,
        urlPolicy: LOCAL,
        verification: 'event',
        authorize: unsafeAllowAnyone('acme'),
      });
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await handler(
          new Request(`http://api.test${path}`, {
            method,
            ...(body !== undefined
              ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
              : {}),
          }),
        );
        return { status: response.status, body: (await response.json()) as ApiBody };
      };
      const ok = await call('POST', '/webhooks', { url: r.url, events: ['pet.adopted'] });
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({ enabled: true, tenant: 'acme' });

      echo = false;
      const refused = await call('POST', '/webhooks', { url: r.url, events: ['pet.adopted'] });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({
        code: 'endpoint_unverified',
        details: { status: 200, endpoint: { enabled: false, disabledReason: 'unverified', tenant: 'acme' } },
      });
      const id = refused.body.error?.details.endpoint.id as string;
      expect((await call('POST', `/webhooks/${id}/verify`)).status).toBe(422);
      expect((await call('POST', `/webhooks/${id}/enable`)).status).toBe(422);
      echo = true;
      const verified = await call('POST', `/webhooks/${id}/verify`);
      expect(verified).toMatchObject({ status: 200, body: { id, enabled: true } });

      // Another tenant's id is not found, and no request is made for it.
      const before = r.seen.length;
      const other = createManagementHandler({
        outbox,
        contract,
        urlPolicy: LOCAL,
        verification: 'event',
        authorize: unsafeAllowAnyone('globex'),
      });
      const response = await other(new Request(`http://api.test/webhooks/${id}/verify`, { method: 'POST' }));
      expect(response.status).toBe(404);
      expect(r.seen).toHaveLength(before);
    },
  );
});

describe('verification options', () => {
  it('refuses a CloudEvents handshake without an origin, and verify without verification', async () => {
    const { sqliteOutbox } = await import('../../runtime/deliver/sqlite-outbox.js');
    const outbox = sqliteOutbox(':memory:');
    expect(() =>
      createEndpointManager({
        outbox,
        verification: { mode: 'cloudevents' } as unknown as VerificationOption,
      }),
    ).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    const manager = createEndpointManager({ outbox, urlPolicy: LOCAL });
    const { endpoint } = await manager.register({ url: 'http://127.0.0.1:9/hook', events: ['*'] });
    expect(endpoint.enabled).toBe(true);
    await expect(manager.verify(endpoint.id)).rejects.toMatchObject({ code: 'invalid_config' });
    await outbox.close();
  });
});

describe('verification in the portal', () => {
  it('the add-endpoint page says whether the endpoint verified; Enable verifies again', async () => {
    const { PortalClient, startPortal } = await import('../portal/helpers.js');
    let echo = true;
    const server = await startServer(async (req, res) => {
      const body = (await readBody(req)).toString();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(echo ? (JSON.parse(body) as { data: { challenge: string } }).data.challenge : 'hello');
    });
    const portal = await startPortal({ verification: 'event' });
    try {
      const client = new PortalClient(portal);
      await client.open(portal.link('acme'));
      const add = async () =>
        client.post('/webhooks/portal/endpoints', {
          _csrf: await client.csrf(),
          url: `${server.url}/hook`,
          events: ['pet.adopted'],
        });
      const ok = await add();
      expect(ok.status).toBe(201);
      const okPage = await ok.text();
      expect(okPage).toContain('Verified: the endpoint acknowledged');
      expect(okPage).toMatch(/class="secret" readonly value="whsec_/);

      echo = false;
      const refused = await add();
      expect(refused.status).toBe(422);
      const page = await refused.text();
      expect(page).toContain('Not verified');
      expect(page).toContain('without echoing the challenge');
      expect(page).toMatch(/class="secret" readonly value="whsec_/);
      const stored = (await portal.outbox.listEndpoints({ tenant: 'acme' })).find((e) => !e.enabled);
      expect(stored?.disabledReason).toBe('unverified');
      const id = stored?.id as string;
      expect((await client.get(`/webhooks/portal/endpoints/${id}`)).status).toBe(200);
      expect(await (await client.get(`/webhooks/portal/endpoints/${id}`)).text()).toContain(
        'not verified yet',
      );

      const enable = async () =>
        client.post(`/webhooks/portal/endpoints/${id}/enable`, { _csrf: await client.csrf() });
      expect((await enable()).status).toBe(422);
      echo = true;
      expect((await enable()).status).toBe(303);
      expect((await portal.outbox.getEndpoint(id))?.enabled).toBe(true);
    } finally {
      await portal.close();
      await server.close();
    }
  });
});
