/**
 * One command (`npm run example:petstore`): the Petstore provider and a customer app, end to end.
 *
 * 1. generates the SDK package with `gen-webhooks schemas/ --package` and links it as the customer's
 *    `file:` dependency (prepare-sdk.ts);
 * 2. starts the provider of examples/petstore-provider/ (registration API, SQLite outbox, workers,
 *    portal) on 127.0.0.1, allowing `http://127.0.0.1` endpoints for local development only;
 * 3. starts the customer app (app.ts) as its own process, which registers itself through the
 *    registration API and receives with the SDK; if that process dies (a crash, `kill -9`), it is
 *    started again on the same port and database, and the provider's retries redeliver what it missed.
 *
 * Environment: PORT (provider, default 3000), CUSTOMER_PORT (default 3001), CUSTOMER_DB (default a
 * fresh file per run), CUSTOMER_HANDLE_DELAY_MS (passed to the customer app).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from '../../generator/index.js';
import { prepareSdk } from './prepare-sdk.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');

prepareSdk();
// The provider imports the module generated into generated/ (what its own start script does).
const generation = { inputs: ['schemas'], out: 'generated', cwd: repoRoot } as const;
if ((await generate({ ...generation, check: true })).changed.length > 0) await generate(generation);
const { startProvider } = await import('../petstore-provider/provider.js');

const providerPort = Number(process.env.PORT ?? 3000);
const customerPort = Number(process.env.CUSTOMER_PORT ?? 3001);
const customerDb =
  process.env.CUSTOMER_DB ??
  path.join(mkdtempSync(path.join(os.tmpdir(), 'petstore-customer-')), 'customer.sqlite');

const provider = await startProvider({
  port: providerPort,
  apiKeys: { 'acme-demo-key': 'acme', 'bravo-demo-key': 'bravo' },
  portalKey: process.env.PETSTORE_PORTAL_KEY ?? randomBytes(32).toString('base64url'),
  // Local development only: the customer app listens on http://127.0.0.1. Production endpoints are
  // HTTPS on public addresses (the provider refuses anything else without this flag).
  allowLocalHttp: true,
  log: (line) => console.log(`[provider] ${line}`),
});
console.log(`Petstore provider  ${provider.url}`);

let stopping = false;
let child: ChildProcess | undefined;
let firstReady: (() => void) | undefined;
const ready = new Promise<void>((resolve) => (firstReady = resolve));

function startCustomer(): void {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'app.ts')], {
    cwd: here,
    env: {
      ...process.env,
      PORT: String(customerPort),
      CUSTOMER_DB: customerDb,
      PETSTORE_URL: provider.url,
      PETSTORE_API_KEY: 'acme-demo-key',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = proc;
  console.log(`customer pid ${proc.pid}`);
  let buffered = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      console.log(`[customer] ${line}`);
      if (line.startsWith('customer ready')) firstReady?.();
    }
  });
  proc.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[customer] ${chunk.toString('utf8')}`));
  proc.once('exit', (code, signal) => {
    if (stopping) return;
    console.log(`customer exited (${signal ?? `code ${code}`}); restarting`);
    setTimeout(startCustomer, 250);
  });
}

startCustomer();
await ready;
firstReady = undefined;
console.log(`Customer app       http://127.0.0.1:${customerPort} (database ${customerDb})`);
console.log(`Portal (acme)      ${provider.portalLink('acme')}`);
console.log('Try:');
console.log(
  `  curl -s -X POST -H 'authorization: Bearer acme-demo-key' ${provider.url}/pets/1/adopt -d '{}'`,
);
console.log(`  curl -s http://127.0.0.1:${customerPort}/received`);
console.log('  kill -9 <customer pid>   # it restarts; the provider redelivers, the customer dedupes');
console.log('ready');

const stop = async () => {
  stopping = true;
  child?.kill('SIGTERM');
  await provider.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
