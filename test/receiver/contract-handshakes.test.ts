/**
 * Handshakes declared by a contract (`x-gen-webhooks.handshakes`), end to end: the fixture contract
 * is generated into a temp folder, its generated `createReceiver` — given a secret, a store and no
 * handshake code — serves a real HTTP server on 127.0.0.1, and each handshake gets its answer.
 * Signed ones need a valid signature; nothing a handshake does is claimed in the store.
 */
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../generator/index.js';
import type { Receiver } from '../../runtime/receive/types.js';
import { standardWebhookHeaders } from '../../runtime/signing/standard-webhooks.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { repoRoot } from '../types/typecheck.js';
import { SECRET } from './fixtures.js';
import { type Listening, listen } from './http.js';

mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
const dir = mkdtempSync(path.join(repoRoot, 'test/.tmp/handshakes-'));
const store = memoryStore();
const handled: string[] = [];
const VERIFY_TOKEN = 'meta-verify-token-4f2a';
let server: Listening;
let createGenerated: (options: object) => unknown;

beforeAll(async () => {
  await generate({
    inputs: [path.join(repoRoot, 'test/receiver/fixtures/handshakes.openapi.yaml')],
    out: path.join(dir, 'generated'),
  });
  const generated = (await import(
    pathToFileURL(path.join(dir, 'generated/handshakes-openapi/index.ts')).href
  )) as {
    createReceiver: (options: object) => Receiver<{ 'ticket.opened': { ticketId: string } }>;
  };
  createGenerated = generated.createReceiver;
  const receiver = generated.createReceiver({
    secret: SECRET,
    verifyToken: VERIFY_TOKEN,
    store,
    handlers: {
      'ticket.opened': (event: { data: { ticketId: string } }) => void handled.push(event.data.ticketId),
    },
  });
  server = await listen(http.createServer(receiver.node()));
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
function signed(body: unknown, secret = SECRET): { headers: Record<string, string>; body: string } {
  const text = JSON.stringify(body);
  const headers = standardWebhookHeaders({
    id: `msg_hs_${++n}`,
    timestamp: Math.floor(Date.now() / 1000),
    body: text,
    secret,
  });
  return { headers: { 'content-type': 'application/json', ...headers }, body: text };
}

async function send(init: RequestInit & { path?: string }) {
  const response = await fetch(`${server.url}${init.path ?? '/hooks'}`, init);
  return { status: response.status, headers: response.headers, body: await response.text() };
}

describe('contract handshakes, answered by the generated receiver', () => {
  it('echo (signed POST, JSON): the challenge comes back; forged, it is 401', async () => {
    const ok = await send({ method: 'POST', ...signed({ type: 'url_verification', challenge: 'c-123' }) });
    expect(ok).toMatchObject({ status: 200, body: '{"challenge":"c-123"}' });
    expect(ok.headers.get('content-type')).toBe('application/json');
    const forged = signed(
      { type: 'url_verification', challenge: 'c-123' },
      'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    );
    expect((await send({ method: 'POST', ...forged })).status).toBe(401);
  });

  it('echo (unsigned GET, text, conditional on the query, with its verify token)', async () => {
    const ok = await send({
      method: 'GET',
      path: `/hooks?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`,
    });
    expect(ok).toMatchObject({ status: 200, body: '1158201444' });
    expect(ok.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(ok.headers.get('x-content-type-options')).toBe('nosniff');
    // The condition does not hold: not a handshake, so an unsigned request is refused.
    const other = await send({
      method: 'GET',
      path: `/hooks?hub.mode=unsubscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`,
    });
    expect(other.status).toBeGreaterThanOrEqual(400);
    expect(other.body).not.toBe('1');
  });

  it('echo with a verify token: another token, a prefix of it or none is 403, the challenge never echoed', async () => {
    for (const token of ['wrong-token', VERIFY_TOKEN.slice(0, -1), `${VERIFY_TOKEN}x`, '', undefined]) {
      const query = token === undefined ? '' : `&hub.verify_token=${encodeURIComponent(token)}`;
      const refused = await send({
        method: 'GET',
        path: `/hooks?hub.mode=subscribe${query}&hub.challenge=ch-7781`,
      });
      expect(refused.status, String(token)).toBe(403);
      expect(refused.body).not.toContain('ch-7781');
    }
  });

  it('a contract whose handshake checks a verify token needs one: invalid_config naming its pointer', () => {
    for (const verifyToken of [undefined, '']) {
      let caught: unknown;
      try {
        createGenerated({ secret: SECRET, store, verifyToken, handlers: { 'ticket.opened': () => {} } });
      } catch (error) {
        caught = error;
      }
      expect(caught).toMatchObject({
        code: 'invalid_config',
        message: expect.stringMatching(/createReceiver\(\{ verifyToken \}\)/),
        details: { pointer: '/x-gen-webhooks/handshakes/1/verifyToken' },
      });
    }
  });

  it('echo (unsigned POST, token in the query), and no echo of anything but short printable text', async () => {
    const ok = await send({
      method: 'POST',
      path: '/hooks?validationToken=Validation%3A%20Testing',
      body: '',
    });
    expect(ok).toMatchObject({ status: 200, body: 'Validation: Testing' });
    const html = await send({ method: 'POST', path: `/hooks?validationToken=${'x'.repeat(1025)}`, body: '' });
    expect(html.status).toBeGreaterThanOrEqual(400);
  });

  it('hmac-token: the token back with its HMAC-SHA256 under the secret', async () => {
    const ok = await send({
      method: 'POST',
      ...signed({ type: 'endpoint.url_validation', data: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' } }),
    });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({
      plainToken: 'qgg8vlvZRS6UYooatFL8Aw',
      encryptedToken: createHmac('sha256', SECRET).update('qgg8vlvZRS6UYooatFL8Aw').digest('hex'),
    });
  });

  it('cloudevents: OPTIONS from an allowed origin is allowed with the rate; another origin is 403', async () => {
    const ok = await send({
      method: 'OPTIONS',
      headers: { 'WebHook-Request-Origin': 'WebHooks.example.com' },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('webhook-allowed-origin')).toBe('WebHooks.example.com');
    expect(ok.headers.get('webhook-allowed-rate')).toBe('120');
    const other = await send({ method: 'OPTIONS', headers: { 'WebHook-Request-Origin': 'evil.example' } });
    expect(other.status).toBe(403);
    expect(other.headers.get('webhook-allowed-origin')).toBeNull();
  });

  it('a real event is still dispatched, and no handshake left a claim in the store', async () => {
    const event = signed({
      type: 'ticket.opened',
      timestamp: new Date().toISOString(),
      data: { ticketId: 't_1' },
    });
    const ok = await send({ method: 'POST', ...event });
    expect(ok).toMatchObject({ status: 200, body: '{"status":"processed"}' });
    expect(handled).toEqual(['t_1']);
    for (let i = 1; i < n; i++) {
      const key = `handshakes-openapi:msg_hs_${i}`;
      expect(await store.claim(key, { now: Date.now(), leaseMs: 1000, token: 't' }), key).toBe('claimed');
    }
  });
});
