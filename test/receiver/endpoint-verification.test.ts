/**
 * The sender's endpoint verification (`verification: 'event'`: a signed `webhook.verification`
 * carrying a challenge) against a generated Petstore receiver over HTTP on 127.0.0.1. The receiver
 * answers it by itself — no handler, no code — once the signature verifies; signed with another
 * secret it is 401, so the endpoint stays `unverified`. A verification is never claimed: a real event
 * under the same message id is processed afterwards, not answered as a duplicate.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../generator/index.js';
import type { Contract } from '../../runtime/contract.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { isWebhookError } from '../../runtime/errors.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import type { Receiver } from '../../runtime/receive/types.js';
import { createSignatureScheme } from '../../runtime/signing/resolve.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { repoRoot } from '../types/typecheck.js';
import { type Listening, listen } from './http.js';

interface Petstore {
  contract: Contract;
  createReceiver: (options: object) => Receiver<Record<string, unknown>>;
  createSender: (options: object) => { send(type: string, data: unknown, o?: object): Promise<unknown> };
}

mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
const dir = mkdtempSync(path.join(repoRoot, 'test/.tmp/verification-'));
const urlPolicy = { allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] };
let petstore: Petstore;
let fixtures: Record<string, unknown>;
let server: Listening;
const raw = http.createServer();
const adopted: number[] = [];

/** The customer's receiver: the generated one with a secret and a handler for pet.adopted only. */
function serve(secret: string): void {
  raw.removeAllListeners('request');
  const receiver = petstore.createReceiver({
    secret,
    store: memoryStore(),
    handlers: { 'pet.adopted': (event: { data: { petId: number } }) => void adopted.push(event.data.petId) },
  });
  raw.on('request', receiver.node());
}

beforeAll(async () => {
  await generate({
    inputs: [path.join(repoRoot, 'schemas/petstore.openapi.yaml')],
    out: path.join(dir, 'generated'),
  });
  const folder = path.join(dir, 'generated/petstore-openapi');
  petstore = (await import(pathToFileURL(path.join(folder, 'index.ts')).href)) as Petstore;
  ({ fixtures } = (await import(pathToFileURL(path.join(folder, 'fixtures.ts')).href)) as {
    fixtures: Record<string, unknown>;
  });
  server = await listen(raw);
}, 120_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('endpoint verification against a generated receiver', () => {
  it('a receiver with another secret answers 401: the endpoint stays unverified; with its secret, verify() enables it', async () => {
    const outbox = sqliteOutbox(':memory:');
    const manager = createEndpointManager({
      outbox,
      contract: petstore.contract,
      urlPolicy,
      verification: 'event',
    });
    serve('not-the-endpoint-secret');
    const failed = await manager.register({ url: `${server.url}/webhooks`, events: ['pet.adopted'] }).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (!isWebhookError(failed, 'endpoint_unverified'))
      throw new Error(`expected endpoint_unverified, got ${String(failed)}`);
    const details = failed.details as {
      status: number;
      secret: string;
      endpoint: { id: string; enabled: boolean; disabledReason: string };
    };
    expect(details.status).toBe(401);
    expect(details.endpoint).toMatchObject({ enabled: false, disabledReason: 'unverified' });

    // The customer configures the secret shown once; the verification is answered with no handler for it.
    serve(details.secret);
    const verified = await manager.verify(details.endpoint.id);
    expect(verified).toMatchObject({ enabled: true, disabledReason: null });

    // Deliveries now flow to it.
    const sender = petstore.createSender({ outbox });
    await sender.send('pet.adopted', fixtures['pet.adopted']);
    const result = await createWorker({ outbox, contract: petstore.contract, urlPolicy }).runOnce();
    expect(result).toMatchObject({ attempted: 1, succeeded: 1 });
    expect(adopted).toEqual([(fixtures['pet.adopted'] as { petId: number }).petId]);
    await outbox.close();
  });

  it('the answer needs the signature: forged is 401, genuine echoes the challenge, and claims nothing', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    serve(secret);
    const body = JSON.stringify({
      type: 'webhook.verification',
      timestamp: new Date().toISOString(),
      data: { challenge: 'Zm9vYmFyYmF6cXV4' },
    });
    const sign = async (key: string, id: string, text: string) =>
      createSignatureScheme(petstore.contract.signature, { secret: key }).sign({
        id,
        timestamp: Math.floor(Date.now() / 1000),
        body: text,
      });
    const post = async (headers: Record<string, string>, text: string) => {
      const response = await fetch(`${server.url}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: text,
      });
      return { status: response.status, body: await response.text() };
    };
    expect(await post(await sign('an-attackers-secret', 'msg_v1', body), body)).toMatchObject({
      status: 401,
    });
    expect(await post({}, body)).toMatchObject({ status: 400 });
    expect(await post(await sign(secret, 'msg_v1', body), body)).toEqual({
      status: 200,
      body: '{"challenge":"Zm9vYmFyYmF6cXV4"}',
    });
    // A real event under the same message id is processed: the verification left no claim behind.
    const event = JSON.stringify({
      id: 'msg_v1',
      event: 'pet.adopted',
      timestamp: new Date().toISOString(),
      apiVersion: '2024-06-01',
      data: fixtures['pet.adopted'],
    });
    adopted.length = 0;
    expect(await post(await sign(secret, 'msg_v1', event), event)).toMatchObject({
      status: 200,
      body: '{"status":"processed"}',
    });
    expect(adopted).toHaveLength(1);
  });
});
