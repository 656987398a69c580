/**
 * bench:receive's limit for a Standard Webhooks delivery: a `node:http` handler doing only the
 * unavoidable work — read the body, HMAC-SHA256 of `id.timestamp.body` under the decoded secret,
 * a timing-safe compare with the first `v1,` signature, JSON.parse — and answering 200. No replay
 * window, no validation, no dedupe: what any receiver must at least spend per delivery.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import { readBody } from './http-load.js';

export function standardLimitHandler(secret: string, onEvent: () => void): http.RequestListener {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return readBody<Buffer>('buffer', (body, req, res) => {
    const id = req.headers['webhook-id'];
    const timestamp = req.headers['webhook-timestamp'];
    const header = req.headers['webhook-signature'];
    const given =
      typeof header === 'string' ? Buffer.from(header.slice(3).split(' ')[0] ?? '', 'base64') : undefined;
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
    if (given === undefined || given.length !== expected.length || !timingSafeEqual(given, expected)) {
      res.statusCode = 401;
      res.end();
      return;
    }
    JSON.parse(body.toString('utf8'));
    onEvent();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"status":"ok"}');
  });
}
