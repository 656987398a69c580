/**
 * Delivery shapes a vendor's spec can describe without any x-gen-webhooks (#17), end to end through
 * a generated receiver over HTTP: a key that is not the body's type, a Unix-seconds envelope with the
 * id in the signed header, multipart with a JSON part, form-encoded fields, x-webhooks written as
 * Callback Objects, OpenAPI 3.2 and a generic file name.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { emitAll } from '../../generator/generate.js';
import { loadContract } from '../../generator/parse/index.js';
import { writeOutput } from '../../generator/write.js';
import { repoRoot } from './corpus.js';
import { endpoint, type GeneratedModule } from './deliver.js';
import { standardWebhooksHeaders, type Vendor } from './vendor.js';

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'shapes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = `whsec_${Buffer.from('shapes-test-secret-0123456789abc').toString('base64')}`;

async function generated(spec: string): Promise<{ mod: GeneratedModule; name: string }> {
  const model = await loadContract(path.join(repoRoot, 'test/fixtures/specs', spec));
  const { folders } = emitAll([model], { runtime: 'package', cwd: repoRoot });
  writeOutput(path.join(dir, model.name), folders);
  const folder = path.join(dir, model.name, model.name);
  return {
    mod: (await import(pathToFileURL(path.join(folder, 'index.ts')).href)) as GeneratedModule,
    name: model.name,
  };
}

/** Standard Webhooks over raw bytes of any content type: HMAC-SHA256 of `<id>.<timestamp>.<bytes>`. */
function post(url: string, body: Uint8Array<ArrayBuffer>, type: string): Promise<Response> {
  const id = `msg_${randomUUID().replaceAll('-', '')}`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return fetch(url, {
    method: 'POST',
    body,
    headers: {
      'content-type': type,
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${mac}`,
    },
  });
}

describe('delivery shapes read from the spec', () => {
  it('a key that is not the type, a Unix-seconds timestamp, the id from the signed header', async () => {
    const { mod } = await generated('openapi31/batches.yaml');
    expect(mod.contract.envelope).toEqual({
      kind: 'envelope',
      fields: { timestamp: 'created_at' },
      timestampFormat: 'unix',
      absent: ['id'],
      // Standard Webhooks signs a timestamp header: the body's is read when present, not demanded.
      optional: ['timestamp'],
    });
    const vendor: Vendor = {
      name: 'batches',
      docs: [],
      files: () => true,
      secret: SECRET,
      headers: (body, { timestamp }) => standardWebhooksHeaders(SECRET, body, timestamp),
      deliveryId: (headers) => headers['webhook-id'],
      payload: 'data',
      wrap: (payload) => payload,
    };
    const server = await endpoint(mod, vendor);
    try {
      const body = { type: 'batch.completed', created_at: 1767225600, data: { id: 'b_1', count: 3 } };
      const answer = await server.deliver('batch_completed', body);
      expect(answer.status).toBe(200);
      expect(answer.seen).toEqual([
        { handler: 'batch_completed', id: answer.headers['webhook-id'], data: body.data },
      ]);
      const unknown = await server.deliver('x', { type: 'batch.started', created_at: 1, data: {} });
      expect(unknown.seen.map((s) => s.handler)).toEqual(['(unknown)']);
    } finally {
      await server.close();
    }
  });

  it('multipart with a JSON part and form fields, from an OpenAPI 3.2 file named openapi.yaml', async () => {
    const { mod, name } = await generated('openapi32/openapi.yaml');
    expect(name).toBe('media-server-hooks');
    expect(Object.keys(mod.contract.events).sort()).toEqual(['form.submitted', 'media.event']);
    expect(mod.contract.bodies).toEqual({ form: true, multipart: true, jsonFields: ['payload'] });
    const seen: { type: string; data: unknown }[] = [];
    const receiver = mod.createReceiver({
      secret: SECRET,
      dedupe: false,
      handlers: {
        'media.event': (event) => void seen.push({ type: event.type, data: event.data }),
        'form.submitted': (event) => void seen.push({ type: event.type, data: event.data }),
      },
    });
    const http = await import('node:http');
    const server = http.createServer(receiver.node());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const url = `http://127.0.0.1:${port}/`;
    try {
      const form = new FormData();
      form.append('payload', JSON.stringify({ event: 'media.play', Account: { id: 1, title: 'me' } }));
      form.append('thumb', new Blob([new Uint8Array([255, 216, 255])], { type: 'image/jpeg' }), 'thumb.jpg');
      const request = new Request(url, { method: 'POST', body: form });
      const bytes = new Uint8Array(await request.arrayBuffer()) as Uint8Array<ArrayBuffer>;
      const multipart = await post(url, bytes, request.headers.get('content-type') ?? '');
      expect(multipart.status, await multipart.clone().text()).toBe(200);
      const fields = new TextEncoder().encode(
        new URLSearchParams({ form_id: 'f1', email: 'a@b.c' }).toString(),
      );
      const encoded = await post(url, fields, 'application/x-www-form-urlencoded');
      expect(encoded.status, await encoded.clone().text()).toBe(200);
      expect(seen).toEqual([
        {
          type: 'media.event',
          data: {
            payload: { event: 'media.play', Account: { id: 1, title: 'me' } },
            thumb: '/9j/',
          },
        },
        { type: 'form.submitted', data: { form_id: 'f1', email: 'a@b.c' } },
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
