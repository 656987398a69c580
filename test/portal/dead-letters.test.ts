/**
 * Dead letters on both outboxes: the management API's cross-endpoint listing (the caller's tenant
 * only, filterable by endpoint, another tenant's endpoint 404) and the worker's threshold hook (once
 * when an endpoint's dead letters reach the threshold, re-armed when a later count is below it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { createWorker, type DeadLetterThresholdEvent } from '../../runtime/deliver/worker.js';
import { createManagementHandler } from '../../runtime/manage/handler.js';
import {
  LOCAL,
  outboxFixtures,
  petContract,
  startServer,
  startWebServer,
  type TestServer,
} from '../sender/helpers.js';

describe.each(outboxFixtures)('dead letters on $name', (fixture) => {
  const contract = petContract({ kind: 'list', delays: [0] }); // one attempt: a failure is a dead letter
  let outbox: Outbox;
  let cleanup: () => Promise<void>;
  let api: TestServer;
  let receiver: TestServer;
  let ok = false;

  const call = async (tenant: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: {
        authorization: tenant,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as never };
  };

  beforeAll(async () => {
    if (fixture.skip) return;
    const made = await fixture.create('deadletters', { tenancy: 'multi' });
    outbox = made.outbox;
    cleanup = made.cleanup;
    receiver = await startServer((_req, res) => {
      res.statusCode = ok ? 200 : 500;
      res.end(ok ? 'ok' : 'broken');
    });
    api = await startWebServer(
      createManagementHandler({
        outbox,
        contract,
        urlPolicy: LOCAL,
        authorize: (request) => {
          const tenant = request.headers.get('authorization');
          return tenant ? { tenant } : null;
        },
      }),
    );
  });
  afterAll(async () => {
    if (fixture.skip) return;
    await api.close();
    await receiver.close();
    await cleanup();
  });

  it.skipIf(fixture.skip)('lists the caller’s dead letters across endpoints, and only theirs', async () => {
    const register = async (tenant: string, path: string) =>
      (
        (await call(tenant, 'POST', '/webhooks', { url: `${receiver.url}${path}`, events: ['*'] })).body as {
          id: string;
        }
      ).id;
    const a1 = await register('acme', '/a1');
    const a2 = await register('acme', '/a2');
    const b1 = await register('bravo', '/b1');
    const sender = createSender(contract, { outbox });
    await sender.send('pet.adopted', { petId: 'p1', by: 'u' }, { tenant: 'acme' });
    await sender.send('pet.created', { petId: 'p2', name: 'Rex' }, { tenant: 'acme', endpoints: [a2] });
    await sender.send('pet.adopted', { petId: 'p3', by: 'u' }, { tenant: 'bravo' });
    const worker = createWorker({ outbox, contract, urlPolicy: LOCAL });
    expect(await worker.runOnce()).toMatchObject({ dead: 4 });
    await worker.stop();

    const all = await call('acme', 'GET', '/webhooks/dead-letters');
    expect(all.status).toBe(200);
    const data = (all.body as { data: { endpointId: string; status: string; eventType: string }[] }).data;
    expect(data.map((d) => d.endpointId).sort()).toEqual([a1, a2, a2].sort());
    expect(data.every((d) => d.status === 'dead')).toBe(true);
    expect(data[0]).toMatchObject({ attempts: 1, lastError: 'http_500' });
    expect(Object.keys(data[0] as object).sort()).toEqual(
      [
        'attempts',
        'createdAt',
        'endpointId',
        'eventType',
        'finishedAt',
        'id',
        'lastError',
        'messageId',
        'status',
      ].sort(),
    );

    const filtered = await call('acme', 'GET', `/webhooks/dead-letters?endpoint=${a2}&limit=1`);
    expect((filtered.body as { data: { endpointId: string }[] }).data.map((d) => d.endpointId)).toEqual([a2]);
    expect((await call('acme', 'GET', `/webhooks/dead-letters?endpoint=${b1}`)).status).toBe(404);
    const bravo = (await call('bravo', 'GET', '/webhooks/dead-letters')).body as {
      data: { endpointId: string }[];
    };
    expect(bravo.data.map((d) => d.endpointId)).toEqual([b1]);
    expect((await call('acme', 'GET', '/webhooks/dead-letters?limit=0')).status).toBe(400);
    expect((await call('acme', 'POST', '/webhooks/dead-letters', {})).status).toBe(405);
    expect((await call('', 'GET', '/webhooks/dead-letters')).status).toBe(401);
  });

  it.skipIf(fixture.skip)('calls the threshold hook once per crossing', async () => {
    const endpoint = await outbox.createEndpoint(
      {
        tenant: 'hooks',
        url: `${receiver.url}/t`,
        events: ['*'],
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      },
      Date.now(),
    );
    const calls: DeadLetterThresholdEvent[] = [];
    const worker = createWorker({
      outbox,
      contract,
      urlPolicy: LOCAL,
      deadLetterThreshold: 2,
      onDeadLetterThreshold: (event) => {
        calls.push(event);
      },
    });
    const sender = createSender(contract, { outbox });
    const failOne = async () => {
      await sender.send('pet.adopted', { petId: 'x', by: 'y' }, { tenant: 'hooks' });
      await worker.runOnce();
    };
    ok = false;
    await failOne();
    expect(calls).toHaveLength(0);
    await failOne();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ threshold: 2, endpoint: { id: endpoint.id, tenant: 'hooks' } });
    await failOne();
    expect(calls).toHaveLength(1); // still above: not again

    // Fixed and replayed: the dead letters are gone; the next failures count from zero again.
    ok = true;
    expect(await outbox.redeliver({ endpointId: endpoint.id }, Date.now(), { tenant: 'hooks' })).toBe(3);
    expect(await worker.runOnce()).toMatchObject({ succeeded: 3 });
    ok = false;
    await failOne();
    expect(calls).toHaveLength(1);
    await failOne();
    expect(calls).toHaveLength(2);
    await worker.stop();
  });

  it.skipIf(fixture.skip)('refuses a threshold that is not a positive integer', () => {
    expect(() => createWorker({ outbox, deadLetterThreshold: 0, onDeadLetterThreshold: () => {} })).toThrow(
      /deadLetterThreshold must be a positive integer/,
    );
  });
});
