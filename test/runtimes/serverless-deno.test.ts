/**
 * The Deno Deploy recipe of docs/serverless.md run by Deno itself (npm `deno`, `deno serve`), not only
 * by the docs suite's Node: its blocks (the shared `serverless-webhooks.ts` and `main.ts`) are taken
 * from the page, bundled by esbuild with Deno's export conditions against the runtime's sources
 * (so the Web entry is what Deno gets), and served; the module's own check runs in Deno at start-up,
 * then a signed delivery is handled, its repeat answered as a duplicate and a tampered one with 401.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, expect, it } from 'vitest';
import { generate } from '../../generator/generate.js';
import { buildEnvelope } from '../../runtime/envelope.js';
import { createSignatureScheme } from '../../runtime/signing/resolve.js';
import { extractBlocks } from '../docs/blocks.js';
import { contract } from '../golden/petstore-openapi/contract.js';
import { fixtures } from '../golden/petstore-openapi/fixtures.js';
import { repoRoot } from '../types/typecheck.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const deno = path.join(repoRoot, 'node_modules/.bin/deno');
const missing = existsSync(deno) ? undefined : `${deno} is missing (npm install the deno devDependency)`;
if (missing !== undefined && process.env.CI !== 'true') console.warn(`[serverless] skipping: ${missing}`);

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gw-serverless-deno-'));
let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

async function serve(bundle: string): Promise<{ port: number; output: () => string }> {
  const proc = spawn(
    deno,
    ['serve', '--allow-net', '--allow-env', '--host', '127.0.0.1', '--port', '0', bundle],
    {
      cwd: tmp,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: tmp,
        DENO_NO_UPDATE_CHECK: '1',
        DENO_DIR: path.join(tmp, '.deno'),
        PETSTORE_WEBHOOK_SECRET: SECRET,
      },
    },
  );
  child = proc;
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on http:\/\/[^:]+:(\d+)/.exec(output);
      if (match) resolve({ port: Number(match[1]), output: () => output });
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    proc.once('exit', (code, signal) => reject(new Error(`deno exited (${code ?? signal}):\n${output}`)));
  });
}

it.skipIf(missing !== undefined && process.env.CI !== 'true')(
  'the Deno recipe verifies deliveries under deno serve',
  async () => {
    if (missing !== undefined) throw new Error(`deno is required under CI=true: ${missing}`);
    const blocks = extractBlocks(
      'docs/serverless.md',
      readFileSync(path.join(repoRoot, 'docs/serverless.md'), 'utf8'),
    );
    for (const name of ['serverless-webhooks.ts', 'main.ts']) {
      const block = blocks.find((b) => b.file === name);
      if (block === undefined) throw new Error(`docs/serverless.md has no ${name} block`);
      writeFileSync(path.join(tmp, name), block.code);
    }
    await generate({
      inputs: ['schemas/petstore.openapi.yaml'],
      out: path.join(tmp, 'generated'),
      cwd: repoRoot,
    });
    const bundle = path.join(tmp, 'main.bundle.js');
    const result = await build({
      entryPoints: [path.join(tmp, 'main.ts')],
      outfile: bundle,
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      conditions: ['deno'],
      metafile: true,
      logLevel: 'silent',
      alias: {
        '@gen-webhooks/runtime/generated': path.join(repoRoot, 'runtime/generated-web.ts'),
        '@gen-webhooks/runtime': path.join(repoRoot, 'runtime/web.ts'),
        zod: path.join(repoRoot, 'node_modules/zod'),
      },
    });
    // The Web entry, and nothing of Node in the bundle.
    expect(
      Object.keys(result.metafile.inputs).filter((f) => /runtime\/(index|generated)\.ts$/.test(f)),
    ).toEqual([]);
    expect(readFileSync(bundle, 'utf8')).not.toMatch(/from\s*["']node:|import\(\s*["']node:/);

    const { port } = await serve(bundle); // the block's own check ran in Deno before it listens
    const id = `msg_deno_${Date.now()}`;
    const body = JSON.stringify(
      buildEnvelope(contract.envelope, { id, type: 'pet.adopted', data: fixtures['pet.adopted'] }),
    );
    const signature = await createSignatureScheme(contract.signature, { secret: SECRET }).sign({
      id,
      timestamp: Math.floor(Date.now() / 1000),
      body,
    });
    const post = async (text: string) => {
      const response = await fetch(`http://127.0.0.1:${port}/hooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signature },
        body: text,
      });
      return [response.status, await response.json()];
    };
    expect(await post(body)).toEqual([200, { status: 'processed' }]);
    expect(await post(body)).toEqual([200, { status: 'already processed' }]);
    expect(await post(body.replace('"', ' "'))).toMatchObject([
      401,
      { error: { code: 'invalid_signature' } },
    ]);
  },
  120_000,
);
