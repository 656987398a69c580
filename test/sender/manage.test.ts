/** The endpoint management HTTP API: routes, validation errors, 404s, authorisation, rotation. */
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { unsafeAllowAnyone } from '../../runtime/manage/authorize.js';
import { createManagementHandler } from '../../runtime/manage/handler.js';
import { LOCAL, petContract, startServer, tempDir } from './helpers.js';

const BASE = 'http://api.test';

describe('management API', () => {
  let dir: string;
  let outbox: Outbox;
  let handler: (request: Request) => Promise<Response>;
  const contract = petContract({ kind: 'list', delays: [0] });

  const call = async (method: string, path: string, body?: unknown, raw?: string) => {
    const response = await handler(
      new Request(`${BASE}${path}`, {
        method,
        ...(body !== undefined || raw !== undefined
          ? { body: raw ?? JSON.stringify(body), headers: { 'content-type': 'application/json' } }
          : {}),
      }),
    );
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>),
      response,
    };
  };

  beforeEach(() => {
    dir = tempDir('manage');
    outbox = sqliteOutbox(`${dir}/o.db`);
    handler = createManagementHandler({ outbox, contract, urlPolicy: LOCAL, authorize: unsafeAllowAnyone() });
  });
  afterEach(async () => {
    await outbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('registers, lists, gets and deletes endpoints', async () => {
    const created = await call('POST', '/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['pet.adopted'],
    });
    expect(created.status).toBe(201);
    const id = created.body!.id as string;
    expect(created.body).toMatchObject({
      url: 'http://127.0.0.1:9/hook',
      events: ['pet.adopted'],
      enabled: true,
    });
    expect(created.body!.secret).toMatch(/^whsec_/);
    expect(created.response.headers.get('location')).toBe(`/webhooks/${id}`);
    const list = await call('GET', '/webhooks');
    expect(list.status).toBe(200);
    expect((list.body!.data as unknown[]).length).toBe(1);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    const one = await call('GET', `/webhooks/${id}`);
    expect(one.body).toMatchObject({ id, tenant: 'default', enabled: true, disabledReason: null });
    expect(one.body!.secret).toBeUndefined();
    const patched = await call('PATCH', `/webhooks/${id}`, {
      events: ['pet.created', 'pet.created'],
      description: 'ops',
      rateLimit: 5,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, events: ['pet.created'], description: 'ops', rateLimit: 5 });
    const cleared = await call('PATCH', `/webhooks/${id}`, { description: null, rateLimit: null });
    expect(cleared.body).toMatchObject({ events: ['pet.created'], description: null, rateLimit: null });
    expect((await call('PATCH', `/webhooks/${id}`, { events: ['pet.sold'] })).status).toBe(400);
    expect((await call('PATCH', `/webhooks/${id}`, { url: 'http://example.com/h' })).body).toMatchObject({
      error: { code: 'insecure_url' },
    });
    expect((await call('PATCH', `/webhooks/${id}`, { tenant: 'other' })).status).toBe(400);
    expect((await call('GET', `/webhooks/${id}`)).body).toMatchObject({ url: 'http://127.0.0.1:9/hook' });
    expect((await call('DELETE', `/webhooks/${id}`)).status).toBe(204);
    expect((await call('GET', `/webhooks/${id}`)).status).toBe(404);
    expect((await call('DELETE', `/webhooks/${id}`)).status).toBe(404);
  });

  it('answers clear 4xx JSON errors for bad input', async () => {
    const badJson = await call('POST', '/webhooks', undefined, '{"url": ');
    expect(badJson.status).toBe(400);
    expect(badJson.body).toMatchObject({ error: { code: 'invalid_body' } });
    const missing = await call('POST', '/webhooks', { url: 'https://8.8.8.8/h' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: { code: 'invalid_argument' } });
    expect(JSON.stringify(missing.body)).toContain('/events');
    const extra = await call('POST', '/webhooks', {
      url: 'https://8.8.8.8/h',
      events: ['pet.adopted'],
      admin: true,
    });
    expect(extra.status).toBe(400);
    const badUrl = await call('POST', '/webhooks', { url: 'not a url', events: ['pet.adopted'] });
    expect(badUrl.body).toMatchObject({ error: { code: 'invalid_url' } });
    const insecure = await call('POST', '/webhooks', {
      url: 'http://example.com/h',
      events: ['pet.adopted'],
    });
    expect(insecure.body).toMatchObject({ error: { code: 'insecure_url' } });
    expect(insecure.status).toBe(400);
    const internal = await call('POST', '/webhooks', {
      url: 'https://169.254.169.254/',
      events: ['pet.adopted'],
    });
    expect(internal.body).toMatchObject({
      error: { code: 'blocked_address', details: { reason: 'metadata' } },
    });
    const unknown = await call('POST', '/webhooks', {
      url: 'https://8.8.8.8/h',
      events: ['pet.adopted', 'pet.sold'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      error: { code: 'unknown_event', details: { unknown: ['pet.sold'] } },
    });
    expect((await call('GET', '/webhooks/ep_missing')).status).toBe(404);
    expect((await call('PATCH', '/webhooks/ep_missing', { description: 'x' })).status).toBe(404);
    expect((await call('POST', '/webhooks/ep_missing/enable')).status).toBe(404);
    expect((await call('POST', '/webhooks/ep_missing/rotate-secret')).status).toBe(404);
    expect((await call('GET', '/webhooks/ep_missing/deliveries')).status).toBe(404);
    expect((await call('POST', '/webhooks/ep_missing/redeliver', { messageId: 'm' })).status).toBe(404);
    expect((await call('GET', '/elsewhere')).status).toBe(404);
    expect((await call('GET', '/webhooks/x/unknown-action')).status).toBe(404);
    const wrong = await call('PUT', '/webhooks');
    expect(wrong.status).toBe(405);
    expect(wrong.response.headers.get('allow')).toBe('GET, POST');
  });

  it('rotates the secret, re-enables, lists attempts and redelivers', async () => {
    let status = 500;
    const server = await startServer((_req, res) => {
      res.statusCode = status;
      res.end();
    });
    try {
      const created = await call('POST', '/webhooks', { url: `${server.url}/hook`, events: ['*'] });
      const id = created.body!.id as string;
      const rotated = await call('POST', `/webhooks/${id}/rotate-secret`, { overlapSeconds: 3600 });
      expect(rotated.status).toBe(200);
      expect(rotated.body!.secret).toMatch(/^whsec_/);
      expect(rotated.body!.secret).not.toBe(created.body!.secret);
      expect(Date.parse(rotated.body!.previousSecretExpiresAt as string)).toBeGreaterThan(Date.now());
      const endpoint = await outbox.getEndpoint(id);
      expect(endpoint!.secrets).toHaveLength(2);
      expect((await call('POST', `/webhooks/${id}/rotate-secret`, { overlapSeconds: -1 })).status).toBe(400);

      const sender = createSender(contract, { outbox });
      const { messageId } = await sender.send('pet.created', { petId: 'p', name: 'rex' });
      const worker = createWorker({
        outbox,
        contract,
        urlPolicy: LOCAL,
        disableAfterFailures: 1,
        disableAfterFailingForMs: 0,
      });
      await worker.runOnce();
      const disabled = await call('GET', `/webhooks/${id}`);
      expect(disabled.body).toMatchObject({ enabled: false, disabledReason: 'consecutive_failures' });
      const attempts = await call('GET', `/webhooks/${id}/deliveries?limit=10`);
      expect(attempts.body!.data).toEqual([
        expect.objectContaining({
          messageId,
          attempt: 1,
          outcome: 'failed',
          statusCode: 500,
          errorCode: 'http_error',
        }),
      ]);
      expect((await call('GET', `/webhooks/${id}/deliveries?limit=0`)).status).toBe(400);
      const enabled = await call('POST', `/webhooks/${id}/enable`);
      expect(enabled.body).toMatchObject({ enabled: true, consecutiveFailures: 0 });

      status = 200;
      const badRange = await call('POST', `/webhooks/${id}/redeliver`, { from: 'yesterday' });
      expect(badRange.status).toBe(400);
      const reversed = await call('POST', `/webhooks/${id}/redeliver`, {
        from: '2030-01-02T00:00:00Z',
        to: '2030-01-01T00:00:00Z',
      });
      expect(reversed.status).toBe(400);
      const redelivered = await call('POST', `/webhooks/${id}/redeliver`, { messageId });
      expect(redelivered).toMatchObject({ status: 202, body: { redelivered: 1 } });
      expect(await worker.runOnce()).toMatchObject({ succeeded: 1 });
      const range = await call('POST', `/webhooks/${id}/redeliver`, { from: 0, to: Date.now() + 1000 });
      expect(range.body).toEqual({ redelivered: 0 }); // nothing dead any more
      await worker.stop();
    } finally {
      await server.close();
    }
  });

  it('refuses to be built without authorize, and names the opt-out', () => {
    const build = () =>
      createManagementHandler({ outbox, contract } as unknown as Parameters<
        typeof createManagementHandler
      >[0]);
    expect(build).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    expect(build).toThrow(/unsafeAllowAnyone/);
  });

  it('runs the authorize hook first: null → 401, a Response as is, a tenant-less verdict → 500', async () => {
    const guarded = createManagementHandler({
      outbox,
      contract,
      urlPolicy: LOCAL,
      basePath: '/api/hooks/',
      authorize: (request) => {
        const auth = request.headers.get('authorization');
        if (auth === 'Bearer good') return { tenant: 'acme' };
        if (auth === 'Bearer readonly') return new Response('read only', { status: 403 });
        if (auth === 'Bearer legacy') return true as unknown as null; // the pre-tenant contract
        if (auth === 'Bearer empty') return { tenant: '' };
        return null;
      },
    });
    const go = (auth?: string) =>
      guarded(new Request(`${BASE}/api/hooks`, { headers: auth ? { authorization: auth } : {} }));
    const none = await go();
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: { code: 'unauthorized' } });
    expect((await go('Bearer bad')).status).toBe(401);
    expect((await go('Bearer readonly')).status).toBe(403);
    for (const auth of ['Bearer legacy', 'Bearer empty']) {
      const broken = await go(auth);
      expect(broken.status).toBe(500);
      expect(await broken.json()).toMatchObject({ error: { code: 'invalid_config' } });
    }
    const ok = await go('Bearer good');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ data: [] });
  });
});
