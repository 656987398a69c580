/** `sendNow` (no outbox) and contract variants: HMAC signatures and header-selected events. */
import { createHmac } from 'node:crypto';
import type http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineContract } from '../../runtime/contract.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { LOCAL, petContract, readBody, startServer, type TestServer } from './helpers.js';

describe('sendNow', () => {
  let server: TestServer;
  const seen: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  let statuses: number[] = [];
  beforeAll(async () => {
    server = await startServer(async (req, res) => {
      seen.push({ headers: req.headers, body: (await readBody(req)).toString('utf8') });
      const status = statuses.shift() ?? 200;
      res.writeHead(status, status === 429 ? { 'retry-after': '7' } : {}).end();
    });
  });
  afterAll(() => server.close());

  it('signs, retries on the schedule with the injected sleep, and stops on success', async () => {
    seen.length = 0;
    statuses = [503, 429];
    const waits: number[] = [];
    const sender = createSender(petContract(), {
      urlPolicy: LOCAL,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const result = await sender.sendNow(
      'pet.adopted',
      { petId: 'p', by: 'q' },
      { url: `${server.url}/h`, secret },
    );
    expect(result.delivered).toBe(true);
    expect(result.attempts.map((a) => a.status)).toEqual([503, 429, 200]);
    expect(waits).toEqual([1000, 7000]); // schedule 1 s, then Retry-After 7 s
    expect(new Set(seen.map((s) => s.headers['webhook-id']))).toEqual(new Set([result.messageId]));
    expect(
      new Webhook(secret).verify(seen[2]!.body, seen[2]!.headers as Record<string, string>),
    ).toBeTruthy();
  });

  it('gives up on a non-retryable answer and when the schedule is exhausted', async () => {
    statuses = [400];
    const sender = createSender(petContract(), { urlPolicy: LOCAL, sleep: async () => undefined });
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const bad = await sender.sendNow(
      'pet.adopted',
      { petId: 'p', by: 'q' },
      { url: `${server.url}/h`, secret },
    );
    expect(bad).toMatchObject({ delivered: false });
    expect(bad.attempts).toHaveLength(1);
    statuses = [500, 500, 500];
    const exhausted = await sender.sendNow(
      'pet.adopted',
      { petId: 'p', by: 'q' },
      { url: `${server.url}/h`, secret, retry: { kind: 'list', delays: [0, 1, 1] } },
    );
    expect(exhausted.attempts.map((a) => a.status)).toEqual([500, 500, 500]);
    expect(exhausted.attempts[2]!.error).toBe('http_500');
    const insecure = await sender.sendNow(
      'pet.adopted',
      { petId: 'p', by: 'q' },
      { url: 'http://example.com/h', secret },
    );
    expect(insecure.attempts[0]!.classification).toMatchObject({ outcome: 'fail', code: 'insecure_url' });
    await expect(sender.send('pet.adopted', { petId: 'p', by: 'q' })).rejects.toMatchObject({
      code: 'invalid_config',
    });
  });

  it('uses the contract’s HMAC scheme, bare envelope and event header', async () => {
    seen.length = 0;
    statuses = [];
    const contract = defineContract<{ push: { ref: string } }>({
      name: 'gh',
      events: { push: { schema: z.object({ ref: z.string() }), match: { header: 'push' } } },
      signature: {
        kind: 'hmac',
        header: 'X-Hub-Signature-256',
        algorithm: 'sha256',
        encoding: 'hex',
        prefix: 'sha256=',
      },
      envelope: { kind: 'bare' },
      selector: { kind: 'header', header: 'X-GitHub-Event' },
    });
    const sender = createSender(contract, { urlPolicy: LOCAL });
    const result = await sender.sendNow(
      'push',
      { ref: 'main' },
      { url: `${server.url}/gh`, secret: 'topsecret' },
    );
    expect(result.delivered).toBe(true);
    const req = seen[0]!;
    expect(req.body).toBe('{"ref":"main"}');
    expect(req.headers['x-github-event']).toBe('push');
    const expected = `sha256=${createHmac('sha256', 'topsecret').update(req.body).digest('hex')}`;
    expect(req.headers['x-hub-signature-256']).toBe(expected);
  });

  it('refuses payloads over the size limit', async () => {
    const sender = createSender(petContract(), { urlPolicy: LOCAL, maxPayloadBytes: 100 });
    await expect(
      sender.sendNow(
        'pet.adopted',
        { petId: 'x'.repeat(200), by: 'q' },
        { url: `${server.url}/h`, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      ),
    ).rejects.toMatchObject({ code: 'payload_too_large' });
  });
});
