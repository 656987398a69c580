/** URL inputs and remote fetch failures (#17), against real HTTP servers on 127.0.0.1. */

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGenerate } from '../generator/commands/generate.js';
import { GeneratorError } from '../generator/errors.js';
import { loadContract } from '../generator/parse/index.js';
import type { ToolIo } from '../generator/tools/output.js';
import { repoRoot } from './types/typecheck.js';

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'url-'));

const spec = (ref: string) => `openapi: 3.1.0
info: { title: Remote Hooks, version: 1.0.0 }
webhooks:
  thing.created:
    post:
      requestBody:
        content:
          application/json:
            schema: { $ref: '${ref}' }
`;
const thing = `type: object
required: [id]
properties: { id: { type: string } }
`;

let server: http.Server;
let base = '';
let closedPort = 0;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    const routes: Record<string, string> = {
      '/hooks/openapi.yaml': spec('#/components/schemas/Thing').replace(
        'webhooks:',
        `components:\n  schemas:\n    Thing:\n${thing.replace(/^/gm, '      ')}\nwebhooks:`,
      ),
      '/hooks/split.yaml': spec('./thing.yaml'),
      '/hooks/thing.yaml': thing,
      '/hooks/broken.yaml': spec(`http://127.0.0.1:${closedPort}/gone.yaml`),
    };
    const body = routes[req.url ?? ''];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/yaml' });
    res.end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A port nobody listens on: bind, note it, close.
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function io(): ToolIo & { err: () => string } {
  let err = '';
  return {
    stdout: { write: () => true },
    stderr: { write: (c: string) => (err += c) },
    env: {},
    err: () => err,
  };
}

describe('URL inputs', () => {
  it('generates from a URL; the generic file name takes the title', async () => {
    const out = path.join(dir, 'out');
    const err = io();
    expect(await runGenerate([`${base}/hooks/openapi.yaml`, '--out', out, '--quiet'], err)).toBe(0);
    expect(readFileSync(path.join(out, 'remote-hooks/contract.js'), 'utf8')).toContain(
      `from ${base}/hooks/openapi.yaml`,
    );
  });

  it("follows a remote document's relative $refs with --allow-remote-refs, refuses them without", async () => {
    const model = await loadContract(`${base}/hooks/split.yaml`, { allowRemoteRefs: true });
    expect(model.events.map((e) => e.name)).toEqual(['thing.created']);
    await expect(loadContract(`${base}/hooks/split.yaml`)).rejects.toMatchObject({
      code: 'remote_ref_refused',
    });
  });

  it('a failed fetch names the file, the pointer of the $ref and the cause', async () => {
    let error: unknown;
    try {
      await loadContract(`${base}/hooks/broken.yaml`, { allowRemoteRefs: true });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(GeneratorError);
    const e = error as GeneratorError;
    expect(e.code).toBe('network_error');
    expect(e.file).toBe(`${base}/hooks/broken.yaml`);
    expect(e.pointer).toBe('/webhooks/thing.created/post/requestBody/content/application~1json/schema/$ref');
    expect(e.message).toContain(`cannot fetch http://127.0.0.1:${closedPort}/gone.yaml`);
    expect(e.cause).toBeInstanceOf(GeneratorError);
    const missing = io();
    expect(await runGenerate([`${base}/hooks/nothing.yaml`, '--out', path.join(dir, 'x')], missing)).toBe(2);
    expect(missing.err()).toContain('HTTP 404');
  });
});
