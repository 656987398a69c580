/**
 * The receiver's validation policy over real HTTP on 127.0.0.1, with modules generated from the
 * evolution fixtures (HMAC `X-Pet-Signature: sha256=<hex>` over the body, Standard Webhooks envelope):
 * strict / report / off, `onValidationIssue`, unknown event types (ignore, catch-all, reject),
 * additional properties (accepted and kept unless the schema closes the object and the policy is
 * strict), and the sender refusing a payload that breaks the contract. See docs/evolution.md.
 */
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../../generator/index.js';
import { repoRoot, tempDir } from './agreement-harness.js';

const SECRET = 'evolution-policy-secret';
const tmp = tempDir('policy-');
const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) server.close();
  tmp.remove();
});

interface Received {
  readonly type: string;
  readonly data: unknown;
  readonly issues: readonly { path: string; message: string }[];
}
interface GeneratedModule {
  createReceiver(options: object): { node(): RequestListener };
  createSender(options: object): {
    sendNow(
      type: string,
      data: unknown,
      options: { url: string; secret: string },
    ): Promise<{ delivered: boolean }>;
  };
}

async function load(fixture: string): Promise<GeneratedModule> {
  const out = path.join(tmp.dir, fixture);
  const result = await generate({
    inputs: [path.join(repoRoot, 'test/evolution/fixtures', `${fixture}.yaml`)],
    out,
    cwd: repoRoot,
  });
  const name = result.contracts[0]?.name ?? '';
  return (await import(pathToFileURL(path.join(out, name, 'index.ts')).href)) as GeneratedModule;
}

async function listen(mod: GeneratedModule, options: object): Promise<string> {
  const server = createServer(mod.createReceiver({ secret: SECRET, dedupe: false, ...options }).node());
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

let counter = 0;
/** POSTs a signed envelope the way the contract's sender would, whatever the payload. */
async function post(url: string, type: string, data: unknown): Promise<{ status: number; body: unknown }> {
  const body = JSON.stringify({ id: `msg_${++counter}`, type, timestamp: new Date().toISOString(), data });
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-pet-signature': signature },
    body,
  });
  return { status: response.status, body: await response.json() };
}

const VALID = {
  pet: { id: 7, status: 'available', name: 'Rex' },
  adopter: { kind: 'person', name: 'Ada' },
};
/** Drift: an enum value the contract does not know yet, and a required field missing. */
const DRIFTING = { pet: { id: 7, status: 'pending' }, adopter: { kind: 'person' } };

describe('receiver validation policy (real HTTP)', async () => {
  const base = await load('base');
  const closed = await load('additional-properties-closed');

  it('strict answers 400 listing the issues; the handler does not run', async () => {
    const received: Received[] = [];
    const seen: unknown[] = [];
    const url = await listen(base, {
      validation: 'strict',
      handlers: { 'pet.adopted': (e: Received) => received.push(e) },
      onValidationIssue: (_event: unknown, issues: unknown) => seen.push(issues),
    });
    const answer = await post(url, 'pet.adopted', DRIFTING);
    expect(answer.status).toBe(400);
    const error = (answer.body as { error: { code: string; issues: { path: string }[] } }).error;
    expect(error.code).toBe('invalid_payload');
    expect(error.issues.map((i) => i.path).sort()).toEqual(['/data/adopter', '/data/pet/status']);
    expect(received).toEqual([]);
    expect(seen).toHaveLength(1);
    expect((await post(url, 'pet.adopted', VALID)).status).toBe(200);
    expect(received).toHaveLength(1);
  });

  it('report accepts it: the handler gets the payload as received plus the issues; onValidationIssue fires', async () => {
    const received: Received[] = [];
    const seen: { event: { type: string }; issues: readonly { path: string }[] }[] = [];
    const url = await listen(base, {
      validation: 'report',
      handlers: { 'pet.adopted': (e: Received) => received.push(e) },
      onValidationIssue: (event: { type: string }, issues: readonly { path: string }[]) =>
        seen.push({ event, issues }),
    });
    const answer = await post(url, 'pet.adopted', DRIFTING);
    expect(answer.status).toBe(200);
    expect(received).toHaveLength(1);
    expect(received[0]?.data).toEqual(DRIFTING);
    expect(received[0]?.issues.map((i) => i.path).sort()).toEqual(['/data/adopter', '/data/pet/status']);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.event.type).toBe('pet.adopted');
    // a valid payload in report mode: no issues, no hook
    await post(url, 'pet.adopted', VALID);
    expect(received[1]?.issues).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it('off: no validation, no issues, no hook', async () => {
    const received: Received[] = [];
    const seen: unknown[] = [];
    const url = await listen(base, {
      validation: 'off',
      handlers: { 'pet.adopted': (e: Received) => received.push(e) },
      onValidationIssue: () => seen.push(1),
    });
    expect((await post(url, 'pet.adopted', DRIFTING)).status).toBe(200);
    expect(received[0]?.data).toEqual(DRIFTING);
    expect(received[0]?.issues).toEqual([]);
    expect(seen).toEqual([]);
  });

  it('validationByEvent overrides the policy for one event', async () => {
    const received: Received[] = [];
    const url = await listen(base, {
      validation: 'strict',
      validationByEvent: { 'pet.adopted': 'report' },
      handlers: {
        'pet.adopted': (e: Received) => received.push(e),
        'pet.returned': (e: Received) => received.push(e),
      },
    });
    expect((await post(url, 'pet.adopted', DRIFTING)).status).toBe(200);
    expect((await post(url, 'pet.returned', { petId: 'seven' })).status).toBe(400);
  });

  it('unknown event types: ignored with 2xx by default, given to a catch-all, or rejected', async () => {
    const handled: Received[] = [];
    const ignoring = await listen(base, { handlers: { 'pet.adopted': (e: Received) => handled.push(e) } });
    const ignored = await post(ignoring, 'pet.vaccinated', { petId: 7 });
    expect(ignored.status).toBeGreaterThanOrEqual(200);
    expect(ignored.status).toBeLessThan(300);
    expect(handled).toEqual([]);

    const caught: Received[] = [];
    const catchAll = await listen(base, { handlers: {}, unknownEvent: (e: Received) => caught.push(e) });
    expect((await post(catchAll, 'pet.vaccinated', { petId: 7 })).status).toBe(200);
    expect(caught).toMatchObject([{ type: 'pet.vaccinated', data: { petId: 7 } }]);

    const rejecting = await listen(base, { handlers: {}, unknownEvent: 'reject' });
    const rejected = await post(rejecting, 'pet.vaccinated', { petId: 7 });
    expect(rejected.status).toBeGreaterThanOrEqual(400);
    expect(rejected.status).toBeLessThan(500);
  });

  it('additional properties are accepted and kept (forward compatibility)', async () => {
    const received: Received[] = [];
    const url = await listen(base, { handlers: { 'pet.adopted': (e: Received) => received.push(e) } });
    const extra = { ...VALID, pet: { ...VALID.pet, microchip: 'A1' }, shelter: 'north' };
    expect((await post(url, 'pet.adopted', extra)).status).toBe(200);
    expect(received[0]?.data).toEqual(extra);
  });

  it('…unless the schema says additionalProperties: false and the policy is strict', async () => {
    const extra = { ...VALID, pet: { ...VALID.pet, microchip: 'A1' } };
    const strict = await listen(closed, { validation: 'strict', handlers: { 'pet.adopted': () => {} } });
    const refused = await post(strict, 'pet.adopted', extra);
    expect(refused.status).toBe(400);
    expect(
      (refused.body as { error: { issues: { path: string }[] } }).error.issues.map((i) => i.path),
    ).toEqual(['/data/pet']);
    const received: Received[] = [];
    const report = await listen(closed, {
      validation: 'report',
      handlers: { 'pet.adopted': (e: Received) => received.push(e) },
    });
    expect((await post(report, 'pet.adopted', extra)).status).toBe(200);
    expect(received[0]?.data).toEqual(extra);
    expect(received[0]?.issues).toHaveLength(1);
  });

  it('the sender refuses (strict by default) a payload that breaks the contract; nothing is sent', async () => {
    const received: Received[] = [];
    const url = await listen(base, {
      validation: 'off',
      handlers: { 'pet.adopted': (e: Received) => received.push(e) },
    });
    // The URL policy refuses loopback by default (SSRF protection); this test opts in.
    const sender = base.createSender({
      urlPolicy: { allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] },
    });
    await expect(sender.sendNow('pet.adopted', DRIFTING, { url, secret: SECRET })).rejects.toMatchObject({
      code: 'invalid_payload',
    });
    expect(received).toEqual([]);
    const result = await sender.sendNow('pet.adopted', VALID, { url, secret: SECRET });
    expect(result.delivered).toBe(true);
    expect(received).toHaveLength(1);
  });
});
