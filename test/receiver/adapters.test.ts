/** The adapters against real Express, Fastify, Hono (@hono/node-server) and node:http servers. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { expressHandler } from '../../runtime/adapters/express.js';
import { fastifyWebhook } from '../../runtime/adapters/fastify.js';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import { standardWebhookHeaders } from '../../runtime/signing/standard-webhooks.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { adopted, delivery, type PetAdopted, petstore, SECRET } from './fixtures.js';
import { type Listening, listen, post } from './http.js';

const open: Listening[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

function receiver(maxBodyBytes?: number) {
  const handled: PetAdopted[] = [];
  const r = createReceiver(petstore, {
    secret: SECRET,
    store: memoryStore(),
    // The protocol check expects the 400 of an invalid payload (the default is `report`).
    validation: 'strict',
    ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
    handlers: { 'pet.adopted': (event) => void handled.push(event.data) },
  });
  return { r, handled };
}

/** A signed delivery whose bytes are pretty-printed JSON (not what JSON.stringify gives back). */
function prettyDelivery(): { headers: Record<string, string>; body: string } {
  const id = `msg_pretty_${Date.now()}_${Math.random()}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const body = JSON.stringify(
    { id, type: 'pet.adopted', timestamp: new Date(timestamp * 1000).toISOString(), data: adopted('p') },
    null,
    2,
  );
  return {
    headers: {
      'content-type': 'application/json',
      ...standardWebhookHeaders({ id, timestamp, body, secret: SECRET }),
    },
    body,
  };
}

async function checkProtocol(url: string, handled: PetAdopted[]): Promise<void> {
  const d = delivery('pet.adopted', adopted());
  const first = await post(url, d);
  expect(first.status).toBe(200);
  expect(first.headers.get('content-type')).toContain('application/json');
  expect(JSON.parse(first.body)).toEqual({ status: 'processed' });
  expect(JSON.parse((await post(url, d)).body)).toEqual({ status: 'already processed' });
  const bad = await post(url, { headers: d.headers, body: d.body.replace('Ada', 'Eve') });
  expect(bad.status).toBe(401);
  expect(JSON.parse(bad.body)).toMatchObject({ error: { code: 'invalid_signature' } });
  const invalid = await post(url, delivery('pet.adopted', { petId: 7 }));
  expect(invalid.status).toBe(400);
  expect(JSON.parse(invalid.body)).toMatchObject({
    error: { code: 'invalid_payload', issues: expect.any(Array) },
  });
  expect(handled).toEqual([adopted()]);
}

describe('adapters over real HTTP', () => {
  it('node:http: receiver.node()', async () => {
    const { r, handled } = receiver();
    const server = await listen(http.createServer(r.node()));
    open.push(server);
    await checkProtocol(`${server.url}/hooks`, handled);
  });

  it('node:http: answers 413 above maxBodyBytes, by declared length and while streaming', async () => {
    const { r } = receiver(1024);
    const server = await listen(http.createServer(r.node()));
    open.push(server);
    const d = delivery('pet.adopted', { ...adopted(), notes: 'x'.repeat(4000) });
    const declared = await post(server.url, d);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ error: { code: 'payload_too_large' } });
    // Chunked upload without Content-Length: the cap applies while reading.
    const streamed = await new Promise<number>((resolve, reject) => {
      const { port } = new URL(server.url);
      const req = http.request(
        { host: '127.0.0.1', port, method: 'POST', path: '/', headers: d.headers },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 8; i++) req.write('x'.repeat(512));
      req.end();
    });
    expect(streamed).toBe(413);
  });

  it('Express: mounted before express.json() it reads the raw stream', async () => {
    const { r, handled } = receiver();
    const app = express();
    app.post('/hooks', expressHandler(r));
    app.use(express.json());
    app.post('/other', (req, res) => {
      res.json({ echoed: req.body });
    });
    const server = await listen(http.createServer(app));
    open.push(server);
    await checkProtocol(`${server.url}/hooks`, handled);
    // The rest of the app keeps its JSON parsing.
    const other = await post(`${server.url}/other`, {
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(JSON.parse(other.body)).toEqual({ echoed: { a: 1 } });
  });

  it('Express: works with express.raw() on the route', async () => {
    const { r, handled } = receiver();
    const app = express();
    app.post('/hooks', express.raw({ type: '*/*' }), expressHandler(r));
    app.use(express.json());
    const server = await listen(http.createServer(app));
    open.push(server);
    await checkProtocol(`${server.url}/hooks`, handled);
  });

  it('Express: a route-level express.raw() verifies under a global express.json()', async () => {
    const { r, handled } = receiver();
    const app = express();
    app.use(express.json());
    app.post('/hooks', express.raw({ type: '*/*' }), expressHandler(r));
    const server = await listen(http.createServer(app));
    open.push(server);
    await checkProtocol(`${server.url}/hooks`, handled);
  });

  it('Express: the express.json({ verify }) raw-body pattern verifies any sender bytes', async () => {
    const { r, handled } = receiver();
    const app = express();
    app.use(
      express.json({
        verify: (req, _res, buf) => {
          (req as { rawBody?: Buffer }).rawBody = buf;
        },
      }),
    );
    app.post('/hooks', expressHandler(r));
    const server = await listen(http.createServer(app));
    open.push(server);
    await checkProtocol(`${server.url}/hooks`, handled);
    const answer = await post(`${server.url}/hooks`, prettyDelivery());
    expect(answer.status).toBe(200);
    expect(handled).toHaveLength(2);
  });

  it('Express: explains the fix when express.json() consumed non-compact bytes (500 parsed_body)', async () => {
    const { r, handled } = receiver();
    const app = express();
    app.use(express.json());
    app.post('/hooks', express.raw({ type: '*/*' }), expressHandler(r));
    const server = await listen(http.createServer(app));
    open.push(server);
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const answer = await post(`${server.url}/hooks`, prettyDelivery());
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'parsed_body' } });
    const logged = log.mock.calls.map((call) => String(call[0])).join('\n');
    expect(logged).toMatch(/before app\.use\(express\.json\(\)\)/);
    expect(logged).toMatch(/req\.rawBody = buf/);
    log.mockRestore();
    expect(handled).toEqual([]);
  });

  it('Fastify: the plugin parses raw bodies in its own scope only', async () => {
    const { r, handled } = receiver(2048);
    const app = Fastify();
    await app.register(fastifyWebhook(r, { path: '/hooks' }));
    app.post('/other', async (request) => ({ echoed: request.body }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    open.push({ url: '', close: () => app.close() });
    const url = `http://127.0.0.1:${port}`;
    await checkProtocol(`${url}/hooks`, handled);
    const other = await post(`${url}/other`, {
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(JSON.parse(other.body)).toEqual({ echoed: { a: 1 } });
    const big = await post(
      `${url}/hooks`,
      delivery('pet.adopted', { ...adopted(), notes: 'x'.repeat(4000) }),
    );
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body)).toMatchObject({ error: { code: 'payload_too_large' } });
    const d = delivery('pet.adopted', adopted('plain'));
    const text = await post(`${url}/hooks`, {
      headers: { ...d.headers, 'content-type': 'text/plain' },
      body: d.body,
    });
    expect(text.status).toBe(200);
  });

  it('Hono on @hono/node-server: receiver.fetch(c.req.raw)', async () => {
    const { r, handled } = receiver();
    const app = new Hono();
    app.post('/hooks', (c) => r.fetch(c.req.raw));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as http.Server;
    await new Promise<void>((resolve) =>
      server.listening ? resolve() : server.once('listening', () => resolve()),
    );
    const { port } = server.address() as AddressInfo;
    open.push({
      url: '',
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    });
    await checkProtocol(`http://127.0.0.1:${port}/hooks`, handled);
  });
});
