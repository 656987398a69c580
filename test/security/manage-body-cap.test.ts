/**
 * Attack: an authorised (or, with a permissive `authorize`, any) client streams a huge body —
 * chunked, no Content-Length — to a management route, so the handler buffers all of it (as text,
 * then again as UTF-8 bytes) before it compares the size with `maxBodyBytes`: a few such requests
 * exhaust the server's memory.
 *
 * Must hold: the handler stops reading once the body passes `maxBodyBytes` and answers 413
 * `payload_too_large` (the stream is cancelled: far fewer bytes are pulled than the client offers);
 * a declared Content-Length above the cap is a 413 before any byte is read. Over real HTTP (a
 * node:http server that hands the handler the request as a stream) the server consumes at most a
 * bounded amount of a 64 MiB upload.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { unsafeAllowAnyone } from '../../runtime/manage/authorize.js';
import { createManagementHandler } from '../../runtime/manage/handler.js';
import { LOCAL, petContract, tempDir } from '../sender/helpers.js';

const CAP = 64 * 1024;
const CHUNK = 64 * 1024;
const OFFERED = 64 * 1024 * 1024;
// The cap, plus what a stream may have buffered ahead of the reader: far below what is offered.
const BOUND = CAP + 16 * CHUNK;

/** A lazily generated JSON-looking body of `total` bytes that counts what was pulled from it. */
function countingBody(total: number): {
  stream: ReadableStream<Uint8Array>;
  pulled: () => number;
  cancelled: () => boolean;
} {
  let pulled = 0;
  let cancelled = false;
  const chunk = new Uint8Array(CHUNK).fill(0x20); // spaces: valid JSON whitespace
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled >= total) {
          controller.close();
          return;
        }
        pulled += chunk.byteLength;
        controller.enqueue(chunk.slice());
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled, cancelled: () => cancelled };
}

describe('management API body cap', () => {
  let dir: string;
  let outbox: Outbox;
  let handler: (request: Request) => Promise<Response>;

  beforeAll(() => {
    dir = tempDir('manage-cap');
    outbox = sqliteOutbox(`${dir}/o.db`);
    handler = createManagementHandler({
      outbox,
      contract: petContract({ kind: 'list', delays: [0] }),
      urlPolicy: LOCAL,
      authorize: unsafeAllowAnyone(),
      maxBodyBytes: CAP,
    });
  });
  afterAll(async () => {
    await outbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const streamed = (method: string, path: string, body: ReadableStream<Uint8Array>) =>
    new Request(`http://api.test${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);

  it.each([
    ['POST', '/webhooks'],
    ['PATCH', '/webhooks/ep_x'],
    ['POST', '/webhooks/ep_x/rotate-secret'],
    ['POST', '/webhooks/ep_x/redeliver'],
  ])('%s %s stops reading a streamed body at the cap', async (method, path) => {
    const source = countingBody(OFFERED);
    const response = await handler(streamed(method, path, source.stream));
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: 'payload_too_large' } });
    expect(source.pulled()).toBeGreaterThan(CAP);
    expect(source.pulled()).toBeLessThanOrEqual(BOUND);
    expect(source.cancelled()).toBe(true);
  });

  it('refuses a declared Content-Length above the cap before reading', async () => {
    const source = countingBody(OFFERED);
    const request = new Request('http://api.test/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(OFFERED) },
      body: source.stream,
      duplex: 'half',
    } as RequestInit);
    const response = await handler(request);
    expect(response.status).toBe(413);
    expect(source.pulled()).toBe(0);
  });

  it('a body at the cap is still read', async () => {
    const body = JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['pet.adopted'] });
    const padded = body + ' '.repeat(CAP - body.length);
    const response = await handler(
      new Request('http://api.test/webhooks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: padded,
      }),
    );
    expect(response.status).toBe(201);
  });

  it('over real HTTP, the server consumes a bounded part of a 64 MiB chunked upload', async () => {
    let consumed = 0;
    const server = http.createServer((req, res) => {
      void (async () => {
        // As a streaming framework mounts a Web handler: the body is handed over unread.
        const counted = Readable.toWeb(req.on('data', (c: Buffer) => (consumed += c.byteLength)));
        const response = await handler(
          new Request(`http://${req.headers.host}${req.url}`, {
            method: req.method ?? 'GET',
            headers: { 'content-type': String(req.headers['content-type'] ?? '') },
            body: counted as ReadableStream<Uint8Array>,
            duplex: 'half',
          } as RequestInit),
        );
        res.writeHead(response.status, { 'content-type': 'application/json', connection: 'close' });
        res.end(Buffer.from(await response.arrayBuffer()));
        req.destroy();
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const { status, sent } = await new Promise<{ status: number; sent: number }>((resolve, reject) => {
        let sent = 0;
        let status = 0;
        const chunk = Buffer.alloc(CHUNK, 0x20);
        const request = http.request({
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/webhooks',
          headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        });
        const pump = () => {
          while (sent < OFFERED && !request.destroyed) {
            sent += CHUNK;
            if (!request.write(chunk)) {
              request.once('drain', pump);
              return;
            }
          }
          if (!request.destroyed) request.end();
        };
        request.on('response', (response) => {
          status = response.statusCode ?? 0;
          response.resume();
          response.on('end', () => {
            request.destroy();
            resolve({ status, sent });
          });
        });
        // The server may cut the upload before the client reads the answer.
        request.on('error', (error) => (status !== 0 ? resolve({ status, sent }) : reject(error)));
        pump();
      });
      expect(status).toBe(413);
      expect(consumed).toBeLessThan(OFFERED / 8);
      expect(sent).toBeLessThan(OFFERED);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 30_000);
});
