/**
 * Threat: a body trickled one byte at a time holds a connection (and its buffers) for minutes.
 *
 * Attack: a client sends headers with a large Content-Length, then one body byte every 200 ms. Each
 * byte resets any idle timer, so only Node's `server.requestTimeout` (300 s by default) ends it; a
 * few hundred such clients hold every socket a receiver can afford.
 *
 * What must hold: `receiver.node()` reads a body within a deadline (`bodyTimeoutMs`, default
 * 10 000 ms, validated), answers 408 when it passes and closes the connection, never running the
 * handler; a normal request still works; the option can be set per adapter.
 */
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BODY_TIMEOUT_MS } from '../../runtime/adapters/node-http.js';
import { WebhookError } from '../../runtime/errors.js';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { adopted, delivery, petstore, SECRET } from '../receiver/fixtures.js';
import { type Listening, listen } from '../receiver/http.js';

const handled: string[] = [];
function receiver() {
  return createReceiver(petstore, {
    secret: SECRET,
    store: memoryStore(),
    handlers: { 'pet.adopted': (event) => void handled.push(event.id), 'pet.listed': () => {} },
  });
}

const servers: Listening[] = [];
const timers: NodeJS.Timeout[] = [];
afterEach(async () => {
  for (const timer of timers.splice(0)) clearInterval(timer);
  for (const server of servers.splice(0)) await server.close();
  handled.length = 0;
});

async function serve(handler: http.RequestListener): Promise<{ host: string; port: number; url: string }> {
  const server = await listen(http.createServer(handler));
  servers.push(server);
  const url = new URL(server.url);
  return { host: url.hostname, port: Number(url.port), url: server.url };
}

/**
 * A raw client that sends the headers of a signed delivery, then its body one byte every `everyMs`.
 * Resolves with what came back, how long after the headers, and whether the server closed it.
 */
function trickle(
  target: { host: string; port: number },
  everyMs: number,
): Promise<{ response: string; ms: number; closed: boolean; sent: number; total: number }> {
  const { headers, body } = delivery('pet.adopted', adopted('p-trickle'));
  return new Promise((resolve, reject) => {
    const socket = net.connect(target.port, target.host);
    let response = '';
    let sent = 0;
    const started = Date.now();
    socket.setEncoding('utf8');
    socket.on('error', reject);
    socket.on('connect', () => {
      const lines = Object.entries({ ...headers, 'content-type': 'application/json' }).map(
        ([name, value]) => `${name}: ${value}`,
      );
      socket.write(
        `POST /hooks HTTP/1.1\r\nhost: ${target.host}\r\ncontent-length: ${body.length}\r\n${lines.join('\r\n')}\r\n\r\n`,
      );
      const timer = setInterval(() => {
        if (sent < body.length && socket.writable) socket.write(body[sent++] ?? '');
      }, everyMs);
      timers.push(timer);
    });
    socket.on('data', (chunk: string) => (response += chunk));
    socket.on('close', () =>
      resolve({ response, ms: Date.now() - started, closed: true, sent, total: body.length }),
    );
    // Give up well before vitest would: the test then fails on `closed`.
    setTimeout(() => {
      socket.destroy();
      resolve({ response, ms: Date.now() - started, closed: false, sent, total: body.length });
    }, 8_000).unref();
  });
}

describe('receiver.node() body-read deadline', () => {
  it('a trickled body is answered 408 within the deadline and the connection closed; no handler ran', async () => {
    const target = await serve(receiver().node({ bodyTimeoutMs: 300 }));
    const result = await trickle(target, 100);
    expect(result.response).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.closed).toBe(true);
    expect(result.ms).toBeGreaterThanOrEqual(250);
    expect(result.ms).toBeLessThan(300 + 1_500);
    expect(result.sent).toBeLessThan(result.total);
    expect(handled).toEqual([]);
  });

  it('a normal request still works under the same deadline', async () => {
    const target = await serve(receiver().node({ bodyTimeoutMs: 300 }));
    const { headers, body } = delivery('pet.adopted', adopted('p-normal'));
    const response = await fetch(`${target.url}/hooks`, { method: 'POST', headers, body });
    expect(response.status).toBe(200);
    expect(handled).toHaveLength(1);
  });

  it('has a default (10 s) that a trickle hits too: an override smaller than it applies instead', async () => {
    expect(DEFAULT_BODY_TIMEOUT_MS).toBe(10_000);
    // Without an option the default applies: a 1-byte-per-200-ms trickle still reading after 1 s is
    // not answered yet (it would be at 10 s; not waited for here) …
    const target = await serve(receiver().node());
    const early = await Promise.race([
      trickle(target, 200),
      new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), 1_000)),
    ]);
    expect(early).toBe('pending');
    // … while a small-but-not-tiny override answers the same trickle 408 in time.
    const fast = await serve(receiver().node({ bodyTimeoutMs: 1_200 }));
    const result = await trickle(fast, 200);
    expect(result.response).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.ms).toBeGreaterThanOrEqual(1_100);
    expect(result.ms).toBeLessThan(1_200 + 1_500);
    expect(handled).toEqual([]);
  });

  it.each([0, -1, Number.NaN, '5000'])('refuses bodyTimeoutMs %s with invalid_config', (value) => {
    const r = receiver();
    let error: unknown;
    try {
      r.node({ bodyTimeoutMs: value as number });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WebhookError);
    expect((error as WebhookError).code).toBe('invalid_config');
    expect((error as WebhookError).message).toMatch(/bodyTimeoutMs/);
  });
});
