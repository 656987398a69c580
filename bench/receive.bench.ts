/**
 * Receiver throughput, one run.
 *
 * 1. HTTP: a bare `node:http` handler that reads the body and answers 200 (the limit) vs a receiver
 *    for a Petstore-like contract (Standard Webhooks verify + replay window + zod validation + SQLite
 *    dedupe claim/complete), under the same load from a second process (autocannon; every request is
 *    a distinct, freshly signed delivery, so each one is verified, validated and claimed).
 * 2. In-process: `receiver.handle()` ops/s per store (memory, sqlite, and postgres/redis when
 *    DATABASE_URL/REDIS_URL are set), sequential and with 32 in flight.
 *
 *   npx tsx bench/receive.bench.ts     (BENCH_SECONDS=5 BENCH_ROUNDS=3 BENCH_CONNECTIONS=50)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
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
  const prefix = `${process.pid}_${Date.now()}`;
  const pool = Array.from({ length: Math.min(300_000, seconds * 15_000) }, () => signedDelivery(prefix));
  let next = 0;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        setupRequest: (request: Record<string, unknown>) => {
          // Past the pool, ids repeat (duplicates are cheaper); the summary reports it.
          const d = pool[next++ % pool.length] as { headers: Record<string, string>; body: string };
          return { ...request, method: 'POST', headers: d.headers, body: d.body };
        },
      },
    ],
  });
  if (next > pool.length)
    console.error(`note: ${next - pool.length} requests reused ids (pool ${pool.length})`);
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
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
}

function runLoad(url: string): Promise<Load> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', self, '--load', url], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: process.env,
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`load generator exited with ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').pop() ?? '{}') as Load);
    });
  });
}

async function listen(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer({ keepAliveTimeout: 60_000 }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
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
  const db = new Database(path.join(dir, 'bench.db'));
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
  // Warm-up (JIT, SQLite page cache) for both servers.
  await runLoad(bare.url);
  await runLoad(full.url);
  for (let round = 0; round < rounds; round++) {
    results.bare.push(await runLoad(bare.url));
    results.receiver.push(await runLoad(full.url));
  }
  const line = (name: string, runs: Load[]): number => {
    const rps = median(runs.map((r) => r.rps));
    const p50 = median(runs.map((r) => r.p50));
    const p99 = median(runs.map((r) => r.p99));
    const bad = runs.reduce((n, r) => n + r.non2xx + r.errors, 0);
    console.log(
      `  ${name.padEnd(48)} ${rps.toFixed(0).padStart(7)} req/s   p50 ${p50} ms  p99 ${p99} ms   non-2xx/errors ${bad}`,
    );
    return rps;
  };
  const limit = line('bare node:http (read body, 200)', results.bare);
  const ours = line('receiver: verify + validate + SQLite dedupe', results.receiver);
  const r = ours / limit;
  console.log(
    `  ratio receiver / bare: ${r.toFixed(2)}× (target ≥ 0.60×) ${r >= 0.6 ? 'OK' : 'BELOW TARGET'}`,
  );
  console.log(`  events handled by the receiver: ${handled}\n`);
  db.close();
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
