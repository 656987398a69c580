/**
 * Receiver throughput, one run.
 *
 * 1. HTTP: a bare `node:http` handler that reads the body and answers 200 (the limit) vs a receiver
 *    for a Petstore-like contract (Standard Webhooks verify + replay window + zod validation + SQLite
 *    dedupe claim/complete), under the same load from a second process (autocannon; every request is
 *    a distinct, freshly signed delivery, so each one is verified, validated and claimed: the run
 *    checks that every request the receiver got ran the handler, i.e. no duplicate or rejection).
 *    Besides req/s it prints the server's CPU time per request (this process's CPU over the round
 *    divided by requests received), which is far less noisy than req/s on a shared machine.
 * 2. In-process: `receiver.handle()` ops/s per store (memory, sqlite, and postgres/redis when
 *    DATABASE_URL/REDIS_URL are set), sequential and with 32 in flight.
 *
 *   npx tsx bench/receive.bench.ts     (BENCH_SECONDS=5 BENCH_ROUNDS=3 BENCH_CONNECTIONS=50
 *                                       BENCH_POOL_RATE=40000: pre-signed deliveries per second of load)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createReceiver } from '../runtime/receive/create-receiver.js';
import type { Receiver } from '../runtime/receive/types.js';
import { standardWebhookHeaders } from '../runtime/signing/standard-webhooks.js';
import { memoryStore } from '../runtime/stores/memory.js';
import { sqliteStore } from '../runtime/stores/sqlite.js';
import type { IdempotencyStore } from '../runtime/stores/types.js';
import { type PetstoreEvents, petstore, SECRET } from '../test/receiver/fixtures.js';

const self = fileURLToPath(import.meta.url);
const seconds = Number(process.env['BENCH_SECONDS'] ?? 5);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const poolRate = Number(process.env['BENCH_POOL_RATE'] ?? 40_000);

let sequence = 0;
function signedDelivery(prefix: string): { headers: Record<string, string>; body: string } {
  const id = `msg_${prefix}_${++sequence}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({
    id,
    type: 'pet.adopted',
    timestamp: new Date(timestamp * 1000).toISOString(),
    data: { petId: `pet_${sequence}`, adopter: { name: 'Ada Lovelace', email: 'ada@example.com' } },
  });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      ...standardWebhookHeaders({ id, timestamp, body, secret: SECRET }),
    },
  };
}

/** Child mode: run autocannon against argv[3] and print its summary as JSON. */
async function loadGenerator(url: string): Promise<void> {
  // autocannon ships no types; load it through require and describe the part used here.
  const autocannon = createRequire(import.meta.url)('autocannon') as (options: object) => Promise<{
    requests: { average: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
    '2xx': number;
  }>;
  // Deliveries are signed before the clock starts, so the load generator spends its CPU on sending.
  // The pool covers BENCH_POOL_RATE req/s for the whole run; should a run outpace it, further
  // deliveries are signed on demand (still distinct, never a reused id) and the summary says how many.
  const prefix = `${process.pid}_${Date.now()}`;
  const pool: ({ headers: Record<string, string>; body: string } | undefined)[] = Array.from(
    { length: Math.min(1_000_000, seconds * poolRate) },
    () => signedDelivery(prefix),
  );
  let next = 0;
  let signedLate = 0;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        setupRequest: (request: Record<string, unknown>) => {
          let d = pool[next];
          if (d === undefined) {
            d = signedDelivery(prefix);
            signedLate++;
          } else pool[next] = undefined;
          next++;
          return { ...request, method: 'POST', headers: d.headers, body: d.body };
        },
      },
    ],
  });
  if (signedLate > 0)
    console.error(`note: ${signedLate} deliveries signed during the run (pool ${pool.length} ran out)`);
  process.stdout.write(
    `${JSON.stringify({
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      ok: result['2xx'],
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
    })}\n`,
  );
}

interface Load {
  rps: number;
  /** Server (this process) CPU time per answered request, µs. */
  cpuUs: number;
  /** Requests the server received during the run. */
  served: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
}

/** Runs one load round against `server` and adds this process's CPU time per request received. */
function runLoad(server: Server): Promise<Load> {
  const cpu = process.cpuUsage();
  const served = server.served();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', self, '--load', server.url], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: process.env,
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', async (code) => {
      if (code !== 0) {
        reject(new Error(`load generator exited with ${code}`));
        return;
      }
      // Let requests still in flight when the load stopped finish (their CPU and handler count).
      await new Promise((settle) => setTimeout(settle, 100));
      const used = process.cpuUsage(cpu);
      const n = server.served() - served;
      const load = JSON.parse(out.trim().split('\n').pop() ?? '{}') as Omit<Load, 'cpuUs' | 'served'>;
      resolve({ ...load, served: n, cpuUs: n === 0 ? 0 : (used.user + used.system) / n });
    });
  });
}

interface Server {
  readonly url: string;
  /** Requests received so far. */
  served(): number;
  close(): Promise<void>;
}

async function listen(handler: http.RequestListener): Promise<Server> {
  let served = 0;
  const server = http.createServer({ keepAliveTimeout: 60_000 }, handler);
  server.on('request', () => {
    served++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    served: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

async function httpBench(dir: string): Promise<void> {
  const bare = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status":"ok"}');
    });
  });
  let handled = 0;
  const receiver = createReceiver(petstore, {
    secret: SECRET,
    store: sqliteStore(path.join(dir, 'dedupe.db')),
    handlers: {
      'pet.adopted': () => {
        handled++;
      },
    },
  });
  const full = await listen(receiver.node());
  console.log(
    `HTTP: autocannon in a child process, ${connections} connections, ${seconds} s × ${rounds} rounds (interleaved), distinct signed deliveries`,
  );
  const results: { bare: Load[]; receiver: Load[] } = { bare: [], receiver: [] };
  // Every receiver answer must be a processed event: a distinct delivery, verified, validated,
  // claimed, handled and completed (a duplicate or a rejection would not run the handler).
  let unprocessed = 0;
  const receiverRun = async (): Promise<Load> => {
    const before = handled;
    const load = await runLoad(full);
    unprocessed += load.served - (handled - before);
    return load;
  };
  // Warm-up (JIT, SQLite page cache) for both servers.
  await runLoad(bare);
  await receiverRun();
  for (let round = 0; round < rounds; round++) {
    results.bare.push(await runLoad(bare));
    results.receiver.push(await receiverRun());
  }
  const line = (name: string, runs: Load[]): { rps: number; cpuUs: number } => {
    const rps = median(runs.map((r) => r.rps));
    const cpuUs = median(runs.map((r) => r.cpuUs));
    const p50 = median(runs.map((r) => r.p50));
    const p99 = median(runs.map((r) => r.p99));
    const bad = runs.reduce((n, r) => n + r.non2xx + r.errors, 0);
    console.log(
      `  ${name.padEnd(46)} ${rps.toFixed(0).padStart(7)} req/s  server CPU ${cpuUs.toFixed(1).padStart(5)} µs/req   p50 ${p50} ms  p99 ${p99} ms   non-2xx/errors ${bad}`,
    );
    return { rps, cpuUs };
  };
  const limit = line('bare node:http (read body, 200)', results.bare);
  const ours = line('receiver: verify + validate + SQLite dedupe', results.receiver);
  const r = ours.rps / limit.rps;
  console.log(
    `  ratio receiver / bare: ${r.toFixed(2)}× req/s, ${(limit.cpuUs / ours.cpuUs).toFixed(2)}× server CPU per request (target ≥ 0.60× req/s): ${r >= 0.6 ? 'TARGET MET' : 'BELOW TARGET'}`,
  );
  console.log(
    `  events handled by the receiver: ${handled}; answers that were not a processed event: ${unprocessed}${unprocessed === 0 ? '' : ' (NOT a clean run)'}\n`,
  );
  await bare.close();
  await full.close();
  await receiver.stop();
}

async function pipelineBench(dir: string): Promise<void> {
  const stores: {
    name: string;
    make: () => Promise<{ store: IdempotencyStore<unknown>; close(): Promise<void> }>;
  }[] = [
    { name: 'memory', make: async () => ({ store: memoryStore(), close: async () => {} }) },
    {
      name: 'sqlite',
      make: async () => {
        const store = sqliteStore(path.join(dir, `pipeline-${Date.now()}.db`));
        return { store, close: () => store.close() };
      },
    },
  ];
  const databaseUrl = process.env['DATABASE_URL'];
  const redisUrl = process.env['REDIS_URL'];
  if (databaseUrl === undefined) console.log('  (postgres skipped: DATABASE_URL is not set)');
  else {
    stores.push({
      name: 'postgres',
      make: async () => {
        const { default: pg } = await import('pg');
        const { postgresStore } = await import('../runtime/stores/postgres.js');
        const pool = new pg.Pool({ connectionString: databaseUrl, max: 16 });
        const table = `gw_bench_${process.pid}`;
        const store = postgresStore(pool, { table });
        return {
          store,
          close: async () => {
            await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_queue`);
            await pool.end();
          },
        };
      },
    });
  }
  if (redisUrl === undefined) console.log('  (redis skipped: REDIS_URL is not set)');
  else {
    stores.push({
      name: 'redis',
      make: async () => {
        const { Redis } = await import('ioredis');
        const { redisStore } = await import('../runtime/stores/redis.js');
        const client = new Redis(redisUrl);
        const prefix = `gw-bench:${process.pid}:`;
        return {
          store: redisStore(client, { prefix }),
          close: async () => {
            const keys = await client.keys(`${prefix}*`);
            for (let i = 0; i < keys.length; i += 1000) await client.del(...keys.slice(i, i + 1000));
            await client.quit();
          },
        };
      },
    });
  }
  console.log(
    'In-process receiver.handle() (verify + validate + claim + handler + complete), distinct deliveries:',
  );
  for (const { name, make } of stores) {
    const { store, close } = await make();
    const receiver: Receiver<PetstoreEvents> = createReceiver(petstore, {
      secret: SECRET,
      store,
      handlers: { 'pet.adopted': () => {} },
    });
    const n = name === 'memory' || name === 'sqlite' ? 20_000 : 5_000;
    const deliveries = Array.from({ length: n }, () => signedDelivery(`${name}_${process.pid}`));
    // Warm-up on separate ids.
    for (let i = 0; i < 500; i++) await receiver.handle(signedDelivery(`warm_${name}`));
    const half = n / 2;
    let start = performance.now();
    for (let i = 0; i < half; i++) {
      const result = await receiver.handle(
        deliveries[i] as { headers: Record<string, string>; body: string },
      );
      if (result.outcome !== 'processed') throw new Error(`unexpected ${result.outcome}: ${result.body}`);
    }
    const sequential = half / ((performance.now() - start) / 1000);
    start = performance.now();
    let next = half;
    const lane = async (): Promise<void> => {
      for (let i = next++; i < n; i = next++) {
        const result = await receiver.handle(
          deliveries[i] as { headers: Record<string, string>; body: string },
        );
        if (result.outcome !== 'processed') throw new Error(`unexpected ${result.outcome}: ${result.body}`);
      }
    };
    await Promise.all(Array.from({ length: 32 }, lane));
    const parallel = (n - half) / ((performance.now() - start) / 1000);
    console.log(
      `  ${name.padEnd(10)} ${sequential.toFixed(0).padStart(7)} ops/s sequential   ${parallel.toFixed(0).padStart(7)} ops/s with 32 in flight`,
    );
    await close();
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === '--load') {
    await loadGenerator(process.argv[3] ?? '');
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-receive-bench-'));
  try {
    console.log(`node ${process.version}, ${os.cpus().length} CPUs\n`);
    await httpBench(dir);
    await pipelineBench(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
