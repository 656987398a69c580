/**
 * Attack: a legitimate customer of the management API (tenant B, with valid credentials) reaches
 * another customer's (tenant A's) endpoints — by listing, guessing or learning their ids, or by
 * subscribing to `*` — to read their configuration, take over their secret (rotate and read the new
 * one), change or delete their endpoint, replay their traffic, or receive their events.
 *
 * Must hold, over real HTTP on both outboxes (multi-tenant): B's list holds only B's endpoints; every
 * route on A's id answers B exactly what an unknown id answers (404, no oracle) and changes nothing;
 * no answer to B contains A's secret; B's `*` endpoint receives none of A's sends; a send without a
 * tenant is refused before anything is written. A, meanwhile, still manages its own endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { isWebhookError } from '../../runtime/errors.js';
import { createManagementHandler } from '../../runtime/manage/handler.js';
import {
  LOCAL,
  outboxFixtures,
  petContract,
  readBody,
  startServer,
  startWebServer,
  type TestServer,
} from '../sender/helpers.js';

const TOKENS: Record<string, string> = { 'token-a': 'acme', 'token-b': 'bravo' };

describe.each(outboxFixtures)('management API tenants on $name', (fixture) => {
  const contract = petContract({ kind: 'list', delays: [0] });
  let outbox: Outbox;
  let cleanup: () => Promise<void>;
  let api: TestServer;
  let receiver: TestServer;
  const received = { a: [] as string[], b: [] as string[] };
  /** Every body B was ever answered, to search for A's secret. */
  const answeredToB: string[] = [];

  const call = async (token: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (token === 'token-b') answeredToB.push(text);
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as never) };
  };
  const asA = (method: string, path: string, body?: unknown) => call('token-a', method, path, body);
  const asB = (method: string, path: string, body?: unknown) => call('token-b', method, path, body);

  beforeAll(async () => {
    if (fixture.skip) return;
    const made = await fixture.create('tenants', { tenancy: 'multi' });
    outbox = made.outbox;
    cleanup = made.cleanup;
    receiver = await startServer(async (req, res) => {
      const body = (await readBody(req)).toString('utf8');
      received[req.url === '/a' ? 'a' : 'b'].push(body);
      res.end('ok');
    });
    const handler = createManagementHandler({
      outbox,
      contract,
      urlPolicy: LOCAL,
      authorize: (request) => {
        const token = request.headers.get('authorization')?.replace(/^Bearer /, '') ?? '';
        const tenant = Object.hasOwn(TOKENS, token) ? TOKENS[token] : undefined;
        return tenant ? { tenant } : null;
      },
    });
    api = await startWebServer(handler);
  });
  afterAll(async () => {
    if (fixture.skip) return;
    await api.close();
    await receiver.close();
    await cleanup();
  });

  it.skipIf(fixture.skip)('B can neither see nor touch A, and receives none of A’s events', async () => {
    const a = await asA('POST', '/webhooks', { url: `${receiver.url}/a`, events: ['pet.adopted'] });
    expect(a.status).toBe(201);
    const { id: aId, secret: aSecret } = a.body as unknown as { id: string; secret: string };
    const b = await asB('POST', '/webhooks', { url: `${receiver.url}/b`, events: ['*'] });
    expect(b.status).toBe(201);
    const bId = (b.body as unknown as { id: string; tenant: string }).id;
    expect(b.body).toMatchObject({ tenant: 'bravo' });

    // Traffic: A's send reaches only A's endpoint, B's '*' sees only B's sends.
    const sender = createSender(contract, { outbox });
    const fromA = await sender.send('pet.adopted', { petId: 'a1', by: 'alice' }, { tenant: 'acme' });
    const fromB = await sender.send('pet.adopted', { petId: 'b1', by: 'bob' }, { tenant: 'bravo' });
    expect(fromA.deliveryIds).toHaveLength(1);
    expect(fromB.deliveryIds).toHaveLength(1);
    const untargeted = await sender
      .send('pet.adopted', { petId: 'x', by: 'nobody' }, { id: 'msg_untargeted' })
      .catch((e: unknown) => e);
    expect(isWebhookError(untargeted, 'tenant_required')).toBe(true);
    expect(await outbox.listDeliveries({ messageId: 'msg_untargeted' })).toEqual([]);
    const worker = createWorker({ outbox, contract, urlPolicy: LOCAL });
    expect(await worker.runOnce()).toMatchObject({ succeeded: 2, dead: 0 });
    await worker.stop();
    expect(received.b.map((body) => JSON.parse(body).data.petId)).toEqual(['b1']);
    expect(received.a.map((body) => JSON.parse(body).data.petId)).toEqual(['a1']);

    // Listing: only B's own.
    const list = await asB('GET', '/webhooks');
    expect((list.body as unknown as { data: { id: string }[] }).data.map((e) => e.id)).toEqual([bId]);

    // Every route on A's id answers B as for an id that does not exist, and changes nothing.
    const before = await outbox.getEndpoint(aId);
    const routes: Array<[string, string, unknown?]> = [
      ['GET', ''],
      ['PATCH', '', { url: `${receiver.url}/b`, events: ['*'] }],
      ['DELETE', ''],
      ['POST', '/rotate-secret', { overlapSeconds: 0 }],
      ['POST', '/enable'],
      ['GET', '/deliveries'],
      ['POST', '/redeliver', { messageId: fromA.messageId }],
      ['POST', '/redeliver', { from: 0, to: Date.now() + 60_000 }],
    ];
    for (const [method, action, body] of routes) {
      const theirs = await asB(method, `/webhooks/${aId}${action}`, body);
      const nobodys = await asB(method, `/webhooks/ep_nonexistent${action}`, body);
      expect({ route: `${method} ${action}`, status: theirs.status }).toEqual({
        route: `${method} ${action}`,
        status: 404,
      });
      expect(JSON.stringify(theirs.body).replaceAll(aId, 'ep_nonexistent')).toBe(
        JSON.stringify(nobodys.body),
      );
    }
    expect(await outbox.getEndpoint(aId)).toEqual(before);
    expect((await outbox.getDelivery(fromA.deliveryIds[0] as string))?.status).toBe('succeeded');

    // Through its own endpoint, B cannot reach A's message either.
    expect(await asB('POST', `/webhooks/${bId}/redeliver`, { messageId: fromA.messageId })).toMatchObject({
      status: 202,
      body: { redelivered: 0 },
    });
    const bAttempts = await asB('GET', `/webhooks/${bId}/deliveries`);
    expect(JSON.stringify(bAttempts.body)).not.toContain(fromA.messageId);
    expect(JSON.stringify(bAttempts.body)).toContain(fromB.messageId);
    expect(answeredToB.join('\n')).not.toContain(aSecret);

    // A's own endpoint still answers A (the 404s above were not a broken route).
    expect((await asA('GET', `/webhooks/${aId}`)).status).toBe(200);
    const attempts = await asA('GET', `/webhooks/${aId}/deliveries`);
    expect(JSON.stringify(attempts.body)).toContain(fromA.messageId);
    expect((await asA('POST', `/webhooks/${aId}/redeliver`, { messageId: fromA.messageId })).body).toEqual({
      redelivered: 1,
    });
    expect((await asA('POST', `/webhooks/${aId}/rotate-secret`)).status).toBe(200);
    expect((await asA('GET', '/webhooks')).body).toMatchObject({ data: [{ id: aId, tenant: 'acme' }] });
    expect((await asA('DELETE', `/webhooks/${aId}`)).status).toBe(204);
    expect((await asB('GET', `/webhooks/${bId}`)).status).toBe(200);
  });
});
