/**
 * A generated receiver runs in real runtimes installed from the npm registry — Node, Bun (npm `bun`),
 * Deno (npm `deno`, `--allow-net` only) and workerd (npm `workerd`, no `nodejs_compat`): a signed
 * delivery is handled, the same delivery again is answered as a duplicate, a tampered one gets 401.
 *
 * The Petstore (hmac), Billing (Standard Webhooks) and Keys (asymmetric Ed25519, signed here by
 * node:crypto) modules are generated, and test/runtimes/app/
 * is bundled per runtime by esbuild with that runtime's export conditions, so `@gen-webhooks/runtime`
 * (built into a package folder here) resolves to its Node or Web build by itself. A runtime binary
 * that is missing is skipped with the reason printed, and fails under CI=true.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createPrivateKey, sign } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../generator/generate.js';
import { buildEnvelope } from '../../runtime/envelope.js';
import { createSignatureScheme } from '../../runtime/signing/resolve.js';
import { contract as billing } from '../golden/billing-openapi30/contract.js';
import { fixtures as billingFixtures } from '../golden/billing-openapi30/fixtures.js';
import { contract as petstore } from '../golden/petstore-openapi/contract.js';
import { fixtures as petstoreFixtures } from '../golden/petstore-openapi/fixtures.js';
import { installRuntime } from '../package/install-runtime.js';
import { repoRoot } from '../types/typecheck.js';

const CI = process.env.CI === 'true';
const SECRETS = { petstore: 'petstore-runtime-secret', billing: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };
/** Private half of app.ts's KEYS_PUBLIC (a test key pair, nothing else uses it). */
const KEYS_PRIVATE = createPrivateKey(
  '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIIUBLtdM5Xiw3rNbXp5/szduHSdMBcwDPjVCPPy7Pz/9\n-----END PRIVATE KEY-----\n',
);

interface Runtime {
  readonly name: 'node' | 'bun' | 'deno' | 'workerd';
  /** esbuild platform and conditions: what the runtime's own resolver would pick. */
  readonly platform: 'node' | 'neutral';
  readonly conditions: readonly string[];
  /** The entry bundled for it (test/runtimes/app/…). */
  readonly entry: string;
  /** The runtime build the bundle must contain. */
  readonly build: 'index.js' | 'web.js';
}

const RUNTIMES: readonly Runtime[] = [
  { name: 'node', platform: 'node', conditions: [], entry: 'serve-node.ts', build: 'index.js' },
  { name: 'bun', platform: 'node', conditions: ['bun'], entry: 'serve-bun.ts', build: 'index.js' },
  { name: 'deno', platform: 'neutral', conditions: ['deno'], entry: 'serve-deno.ts', build: 'web.js' },
  {
    name: 'workerd',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    entry: 'app.ts',
    build: 'web.js',
  },
];

/** The binary of a runtime installed from npm (node: this process), or why it is not usable. */
function locate(name: Runtime['name']): { bin: string } | { reason: string } {
  if (name === 'node') return { bin: process.execPath };
  const bin = path.join(repoRoot, 'node_modules/.bin', name);
  if (!existsSync(bin)) return { reason: `${bin} is missing (npm install the ${name} devDependency)` };
  try {
    execFileSync(bin, ['--version'], { stdio: 'pipe', timeout: 30_000 });
  } catch (error) {
    return { reason: `${bin} --version failed: ${(error as Error).message.split('\n')[0]}` };
  }
  return { bin };
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gw-runtimes-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

beforeAll(async () => {
  // The runtime as an installed package (its export map decides which build each runtime gets).
  installRuntime(tmp);
  symlinkSync(path.join(repoRoot, 'node_modules/zod'), path.join(tmp, 'node_modules/zod'), 'dir');
  await generate({
    inputs: [
      'schemas/petstore.openapi.yaml',
      'test/golden/specs/billing.openapi30.yaml',
      'test/golden/specs/keys.openapi31.yaml',
    ],
    out: path.join(tmp, 'gen'),
    cwd: repoRoot,
  });
  for (const file of ['app.ts', 'serve-node.ts', 'serve-bun.ts', 'serve-deno.ts']) {
    copyFileSync(path.join(repoRoot, 'test/runtimes/app', file), path.join(tmp, file));
  }
  writeFileSync(path.join(tmp, 'package.json'), '{ "type": "module" }\n');
}, 180_000);

it('the app type-checks against the generated modules and the Web build of the runtime', () => {
  const program = ts.createProgram({
    rootNames: [path.join(tmp, 'app.ts')],
    options: {
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      customConditions: ['workerd'],
      strict: true,
      noEmit: true,
      types: [],
      typeRoots: [],
    },
  });
  const host: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => tmp,
    getNewLine: () => '\n',
  };
  expect(ts.getPreEmitDiagnostics(program).map((d) => ts.formatDiagnostic(d, host).trim())).toEqual([]);
}, 120_000);

/** A port nothing listens on (workerd needs one in its config). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts the server and resolves with its port once it answers (stdout `listening <port>`, or polling). */
async function start(runtime: Runtime, bin: string, bundle: string): Promise<number> {
  let args: string[];
  let port: number | undefined;
  if (runtime.name === 'workerd') {
    port = await freePort();
    const config = path.join(tmp, 'workerd.capnp');
    writeFileSync(
      config,
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "${path.basename(bundle)}") ],
  compatibilityDate = "2025-06-01",
);
`,
    );
    args = ['serve', config];
  } else if (runtime.name === 'deno') {
    args = ['run', '--allow-net', bundle];
  } else if (runtime.name === 'bun') {
    args = ['run', bundle];
  } else {
    args = [bundle];
  }
  const child = spawn(bin, args, {
    cwd: tmp,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: tmp,
      DENO_NO_UPDATE_CHECK: '1',
      DENO_DIR: path.join(tmp, '.deno'),
    },
  });
  children.push(child);
  let output = '';
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`${runtime.name} exited (${code ?? signal}):\n${output}`)),
    ),
  );
  const listening = new Promise<number>((resolve) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
  });
  const ready = async (): Promise<number> => {
    if (port === undefined) return listening;
    for (let i = 0; i < 200; i++) {
      try {
        await fetch(`http://127.0.0.1:${port}/handled`);
        return port;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new Error(`workerd did not answer on ${port}:\n${output}`);
  };
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`${runtime.name} did not start in 30 s:\n${output}`)), 30_000),
  );
  return Promise.race([ready(), exited, timeout]);
}

async function signed(
  which: 'petstore' | 'billing' | 'keys',
  id: string,
): Promise<{ headers: Record<string, string>; body: string }> {
  if (which === 'keys') {
    // Signed by node:crypto alone (Fern's `{timestamp}.{body}`), verified in the runtime under test.
    const body = JSON.stringify({ type: 'invoice.paid', invoiceId: id, amount: 1200 });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = sign(null, Buffer.from(`${timestamp}.${body}`), KEYS_PRIVATE).toString('base64');
    return {
      headers: {
        'content-type': 'application/json',
        'x-invoice-signature': signature,
        'x-invoice-timestamp': String(timestamp),
      },
      body,
    };
  }
  const contract = which === 'petstore' ? petstore : billing;
  const type = which === 'petstore' ? 'pet.adopted' : 'invoice.paid';
  const data = which === 'petstore' ? petstoreFixtures['pet.adopted'] : billingFixtures['invoice.paid'];
  const body = JSON.stringify(buildEnvelope(contract.envelope, { id, type, data }));
  // The runtime's own signers: the hmac scheme for Petstore, Standard Webhooks for Billing.
  const scheme = createSignatureScheme(contract.signature, { secret: SECRETS[which] });
  const headers = await scheme.sign({ id, timestamp: Math.floor(Date.now() / 1000), body });
  return { headers: { ...headers, 'content-type': 'application/json' }, body };
}

describe.each(RUNTIMES)('$name', (runtime) => {
  const found = locate(runtime.name);
  const missing = 'reason' in found ? found.reason : undefined;
  if (missing !== undefined && !CI) console.warn(`[runtimes] skipping ${runtime.name}: ${missing}`);

  it.skipIf(missing !== undefined && !CI)(
    'handles a signed delivery, answers its repeat as a duplicate and a tampered one with 401',
    async () => {
      if ('reason' in found) throw new Error(`${runtime.name} is required under CI=true: ${found.reason}`);
      const bundle = path.join(tmp, `${runtime.name}.mjs`);
      const result = await build({
        absWorkingDir: tmp,
        entryPoints: [path.join(tmp, runtime.entry)],
        outfile: bundle,
        bundle: true,
        format: 'esm',
        platform: runtime.platform,
        conditions: [...runtime.conditions],
        metafile: true,
        logLevel: 'silent',
      });
      const inputs = Object.keys(result.metafile.inputs);
      expect(inputs).toContain(`node_modules/@gen-webhooks/runtime/dist/${runtime.build}`);
      // The generated modules' own entry (`@gen-webhooks/runtime/generated`), under the same conditions.
      const generated = runtime.build === 'web.js' ? 'generated-web.js' : 'generated.js';
      expect(inputs).toContain(`node_modules/@gen-webhooks/runtime/dist/${generated}`);
      if (runtime.build === 'web.js') {
        // Nothing of Node in a Web bundle: no node:* import survives, no Node build file is in it.
        expect(readFileSync(bundle, 'utf8')).not.toMatch(
          /from\s*["']node:|import\(\s*["']node:|require\(\s*["']node:/,
        );
        expect(inputs.filter((file) => /dist\/(index|generated)\.js$/.test(file))).toEqual([]);
      }
      const port = await start(runtime, found.bin, bundle);
      const post = async (route: string, delivery: { headers: Record<string, string>; body: string }) => {
        const response = await fetch(`http://127.0.0.1:${port}${route}`, {
          method: 'POST',
          headers: delivery.headers,
          body: delivery.body,
        });
        return { status: response.status, body: (await response.json()) as unknown };
      };
      for (const which of ['petstore', 'billing', 'keys'] as const) {
        const delivery = await signed(which, `evt_${runtime.name}_${which}`);
        expect(await post(`/${which}`, delivery), which).toEqual({
          status: 200,
          body: { status: 'processed' },
        });
        expect(await post(`/${which}`, delivery), which).toEqual({
          status: 200,
          body: { status: 'already processed' },
        });
        const tampered = { ...delivery, body: delivery.body.replace('"', ' "') };
        const rejected = await post(`/${which}`, tampered);
        expect(rejected.status, which).toBe(401);
        expect(rejected.body).toMatchObject({ error: { code: 'invalid_signature' } });
      }
      const handled = await (await fetch(`http://127.0.0.1:${port}/handled`)).json();
      expect(handled).toEqual([
        'petstore pet.adopted 4211',
        'billing invoice.paid in_1',
        `keys invoice.paid evt_${runtime.name}_keys`,
      ]);
    },
    120_000,
  );
});
