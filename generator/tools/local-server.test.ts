import { createServer, request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { listenLocal, readBodyCapped } from './local-server.js';

const server = createServer(async (req, res) => {
  const body = await readBodyCapped(req, res, 16);
  if (body === undefined) return;
  res.end(`got ${body.toString('utf8')}`);
});
const { url } = await listenLocal(server, 0);
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** POSTs `body` in one write (declared length) or in two chunks (chunked encoding, no length). */
function post(body: string, chunked: boolean): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/`, { method: 'POST' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    if (chunked) {
      req.write(body.slice(0, 8));
      req.end(body.slice(8));
    } else {
      req.setHeader('content-length', Buffer.byteLength(body));
      req.end(body);
    }
  });
}

describe('readBodyCapped', () => {
  it('returns bodies up to the cap', async () => {
    expect(await post('0123456789abcdef', false)).toEqual({ status: 200, text: 'got 0123456789abcdef' });
    expect(await post('0123456789abcdef', true)).toEqual({ status: 200, text: 'got 0123456789abcdef' });
  });

  it('answers 413 above the cap, whether the length is declared or not', async () => {
    for (const chunked of [false, true]) {
      const { status, text } = await post('0123456789abcdefX', chunked);
      expect(status).toBe(413);
      expect(JSON.parse(text)).toEqual({ error: 'body larger than 16 bytes' });
    }
  });
});
