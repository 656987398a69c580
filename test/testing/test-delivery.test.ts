/**
 * `testDelivery` as users' tests call it: the generated Petstore module's (fixture payloads, typed per
 * event) against its own receiver through `receiver.fetch`, a real `node:http` server on 127.0.0.1
 * (what supertest drives), and Hono's `app.request`; plus the runtime's form for a preset.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  providerContract,
  createReceiver as runtimeReceiver,
  testDelivery as runtimeTestDelivery,
} from '../../runtime/index.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { fixtures } from '../golden/petstore-openapi/fixtures.js';
import {
  createReceiver,
  isWebhookError,
  testDelivery,
  WebhookError,
} from '../golden/petstore-openapi/index.js';

const secret = 'petstore-test-secret';
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

function petstoreReceiver(seen: { type: string; id: string; data: unknown }[]) {
  return createReceiver({
    secret,
    store: memoryStore(),
    handlers: {
      'pet.adopted': (event) => void seen.push({ type: event.type, id: event.id, data: event.data }),
      'order.created': (event) => void seen.push({ type: event.type, id: event.id, data: event.data }),
    },
  });
}

describe('the generated module’s testDelivery', () => {
  it('builds a delivery its receiver accepts, with the event’s fixture when no payload is given', async () => {
    const seen: { type: string; id: string; data: unknown }[] = [];
    const receiver = petstoreReceiver(seen);
    const delivery = await testDelivery('pet.adopted', { secret, id: 'msg_fixture_1' });
    const response = await receiver.fetch(delivery.request());
    expect(response.status, await response.text()).toBe(200);
    expect(seen).toEqual([{ type: 'pet.adopted', id: 'msg_fixture_1', data: fixtures['pet.adopted'] }]);
    // The same id again is a duplicate: the helper's id is the delivery id the receiver dedupes on.
    await receiver.fetch(delivery.request());
    expect(seen).toHaveLength(1);
  });

  it('signs the given payload, id and timestamp; a wrong secret or a changed body is rejected', async () => {
    const seen: { type: string; id: string; data: unknown }[] = [];
    const receiver = petstoreReceiver(seen);
    const payload = { ...fixtures['order.created'], id: 'ord_test_42' };
    const timestamp = Math.floor(Date.now() / 1000) - 60;
    const delivery = await testDelivery('order.created', payload, { secret, id: 'msg_given', timestamp });
    expect(delivery.timestamp).toBe(timestamp);
    const forged = await testDelivery('order.created', payload, { secret: 'not-the-secret' });
    expect((await receiver.fetch(forged.request())).status).toBe(401);
    const changed = new Request(delivery.url, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body.replace('ord_test_42', 'ord_test_43'),
    });
    expect((await receiver.fetch(changed)).status).toBe(401);
    expect((await receiver.fetch(delivery.request())).status).toBe(200);
    expect(seen).toEqual([{ type: 'order.created', id: 'msg_given', data: payload }]);
  });

  it('is accepted by a real node:http server on 127.0.0.1', async () => {
    const seen: { type: string; id: string; data: unknown }[] = [];
    const server = createServer(petstoreReceiver(seen).node());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    const delivery = await testDelivery('pet.adopted', { secret, url });
    const response = await fetch(delivery.request());
    expect(response.status, await response.text()).toBe(200);
    expect(seen.map((event) => event.type)).toEqual(['pet.adopted']);
  });

  it('works with Hono’s app.request', async () => {
    const seen: { type: string; id: string; data: unknown }[] = [];
    const receiver = petstoreReceiver(seen);
    const app = new Hono().post('/webhooks', (c) => receiver.fetch(c.req.raw));
    const delivery = await testDelivery('pet.adopted', { secret });
    const response = await app.request('/webhooks', {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
    });
    expect(response.status).toBe(200);
    expect(seen.map((event) => event.type)).toEqual(['pet.adopted']);
  });

  it('re-exports WebhookError and isWebhookError, and names a missing secret as invalid_config', async () => {
    const error = await testDelivery('pet.adopted', {} as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebhookError);
    expect(isWebhookError(error) && error.code).toBe('invalid_config');
    expect(isWebhookError(error) && error.details).toMatchObject({ option: 'secret' });
  });
});

describe('a key-pair contract’s testDelivery', () => {
  it('signs with the test private key; the receiver verifies with its public key, and no other', async () => {
    const keys = await import('../golden/keys-openapi31/index.js');
    const pem = (pair: ReturnType<typeof generateKeyPairSync>) => ({
      privateKey: pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      publicKey: pair.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    });
    const pair = pem(generateKeyPairSync('ed25519'));
    const other = pem(generateKeyPairSync('ed25519'));
    const paid: string[] = [];
    const receiver = keys.createReceiver({
      publicKey: pair.publicKey,
      store: memoryStore(),
      handlers: { 'invoice.paid': (event) => void paid.push(event.data.invoiceId) },
    });
    const delivery = await keys.testDelivery('invoice.paid', pair);
    expect((await receiver.fetch(delivery.request())).status).toBe(200);
    const foreign = await keys.testDelivery('invoice.paid', other);
    expect((await receiver.fetch(foreign.request())).status).toBe(401);
    expect(paid).toEqual(['inv_1']);
  });
});

describe('the runtime’s testDelivery for a preset', () => {
  it('fills in what the preset selects on, and the preset receiver dispatches it', async () => {
    const paid: unknown[] = [];
    const contract = providerContract('stripe', { 'invoice.paid': z.object({ id: z.string() }) });
    const receiver = runtimeReceiver(contract, {
      secret: 'whsec_stripe_test',
      store: memoryStore(),
      handlers: { 'invoice.paid': (event) => void paid.push(event.data.data.object) },
    });
    const delivery = await runtimeTestDelivery(
      contract,
      'invoice.paid',
      { id: 'evt_1', type: 'invoice.paid', created: 1, data: { object: { id: 'in_1' } } },
      { secret: 'whsec_stripe_test' },
    );
    expect((await receiver.fetch(delivery.request())).status).toBe(200);
    const byName = await runtimeTestDelivery(
      'stripe',
      'invoice.paid',
      { data: { object: { id: 'in_2' } } },
      { secret: 'whsec_stripe_test' },
    );
    expect(JSON.parse(byName.body)).toMatchObject({ type: 'invoice.paid', object: 'event', id: byName.id });
    expect((await receiver.fetch(byName.request())).status).toBe(200);
    expect(paid).toEqual([{ id: 'in_1' }, { id: 'in_2' }]);
  });

  it('refuses a key-pair preset without a key pair (invalid_config naming the option)', async () => {
    const error = await runtimeTestDelivery('discord', 'APPLICATION_AUTHORIZED', {}, {
      secret: 'x',
    } as never).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebhookError);
    expect((error as WebhookError).code).toBe('invalid_config');
    expect((error as WebhookError).details).toMatchObject({ option: 'privateKey' });
  });
});
