/**
 * Receiver throughput, one run. Prints the load average before, per round and after; repeats every
 * HTTP comparison over BENCH_ROUNDS interleaved rounds.
 *
 * 1. HTTP, Petstore: a bare `node:http` handler that reads the body and answers 200, and the limit
 *    for a signed delivery (bench/lib/standard-limit.ts: HMAC + JSON.parse, nothing else), vs a
 *    receiver for a Petstore-like contract (Standard Webhooks verify + replay window + zod validation
 *    + SQLite dedupe claim/complete), under the same load from a second process (autocannon; every
 *    request is a distinct, freshly signed delivery, so each one is verified, validated and claimed:
 *    the run checks that every request the receiver got ran the handler).
 * 2. HTTP, GitHub (bench/lib/receive-github.ts): the generated GitHub receiver with zod validation on
 *    real example payloads vs `@octokit/webhooks`' `createNodeMiddleware` and a bare handler with
 *    `@octokit/webhooks-methods` `verify`, each at the layout a short pilot finds best (printed), in
 *    paired rounds; a limit row doing the unavoidable HMAC + JSON.parse; then the same in process
 *    (`receiver.handle()` vs `verifyAndReceive` at its best) and a summary of layouts and ratios
 *    (BENCH_PILOT_SECONDS=2 per pilot run).
 *    Both HTTP sections print the server's CPU time per request beside req/s (this process's CPU over
 *    the round divided by requests received): the load generator shares the machine's cores, so
 *    req/s alone mostly measures the scheduler.
 * 3. In-process: `receiver.handle()` ops/s per store (memory, sqlite, and postgres/redis when
 *    DATABASE_URL/REDIS_URL are set), sequential and with 32 in flight.
 *
 *   npx tsx bench/receive.bench.ts     (BENCH_SECONDS=5 BENCH_ROUNDS=3 BENCH_CONNECTIONS=50
 *                                       BENCH_POOL_RATE=40000: pre-signed Petstore deliveries per second
 *                                       of load; BENCH_GITHUB_EVENTS=issues.opened,pull_request.opened,push;
 *                                       BENCH_ONLY=petstore|github|pipeline|brokers; BENCH_MAX_LOAD)
 * 4. Broker consumers (bench/lib/receive-brokers.ts): consume-with-dedupe vs a bare consumer, RabbitMQ
 *    and JetStream (AMQP_URL / NATS_URL, BENCH_BROKER_MESSAGES).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createReceiver } from '../runtime/receive/receiver-node.js';
import type { Receiver } from '../runtime/receive/types.js';
import { standardWebhookHeaders } from '../runtime/signing/standard-webhooks.js';
import { memoryStore } from '../runtime/stores/memory.js';
import { sqliteStore } from '../runtime/stores/sqlite.js';
import type { IdempotencyStore } from '../runtime/stores/types.js';
import { type PetstoreEvents, petstore, SECRET } from '../test/receiver/fixtures.js';
import { type Load, listen, runLoad, type Server } from './lib/http-load.js';
import { loadAverage, type MachineLoad, median, spread, startLoad, verdict } from './lib/load.js';
import { brokerBench } from './lib/receive-brokers.js';
import { githubBench } from './lib/receive-github.js';
import { standardLimitHandler } from './lib/standard-limit.js';

const seconds = Number(process.env['BENCH_SECONDS'] ?? 5);
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
const connections = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const only = process.env['BENCH_ONLY'];
const PETSTORE = { kind: 'petstore' } as const;

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

async function httpBench(dir: string, machine: MachineLoad): Promise<void> {
  const bare = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status":"ok"}');
    });
  });
  let limitHandled = 0;
  const limit = await listen(
    standardLimitHandler(SECRET, () => {
      limitHandled++;
    }),
  );
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
    `HTTP, Petstore: autocannon in a child process, ${connections} connections, ${seconds} s × ${rounds} rounds (interleaved), distinct signed deliveries`,
  );
  const results: { bare: Load[]; limit: Load[]; receiver: Load[] } = { bare: [], limit: [], receiver: [] };
  // Every receiver answer must be a processed event: a distinct delivery, verified, validated,
  // claimed, handled and completed (a duplicate or a rejection would not run the handler).
  let unprocessed = 0;
  const countedRun = async (server: Server, count: () => number): Promise<Load> => {
    const before = count();
    const load = await runLoad(server, PETSTORE);
    unprocessed += load.served - (count() - before);
    return load;
  };
  const receiverRun = () => countedRun(full, () => handled);
  const limitRun = () => countedRun(limit, () => limitHandled);
  // Warm-up (JIT, SQLite page cache) for every server.
  await runLoad(bare, PETSTORE);
  await limitRun();
  await receiverRun();
  unprocessed = 0;
  // The order reverses every round (bare, limit, receiver / receiver, limit, bare), so drift in
  // machine load hits all alike and the receiver runs next to each of the others.
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 1) results.receiver.push(await receiverRun());
    else results.bare.push(await runLoad(bare, PETSTORE));
    results.limit.push(await limitRun());
    if (round % 2 === 0) results.receiver.push(await receiverRun());
    else results.bare.push(await runLoad(bare, PETSTORE));
    console.log(`  round ${round + 1}: ${loadAverage()}`);
  }
  const line = (name: string, runs: Load[]): void => {
    const rps = median(runs.map((r) => r.rps));
    const cpuUs = median(runs.map((r) => r.cpuUs));
    const p50 = median(runs.map((r) => r.p50));
    const p99 = median(runs.map((r) => r.p99));
    const bad = runs.reduce((n, r) => n + r.non2xx + r.errors, 0);
    console.log(
      `  ${name.padEnd(46)} ${rps.toFixed(0).padStart(7)} req/s  server CPU ${cpuUs.toFixed(1).padStart(5)} µs/req   p50 ${p50} ms  p99 ${p99} ms   non-2xx/errors ${bad}`,
    );
  };
  line('bare node:http (read body, 200)', results.bare);
  line('limit: read body + HMAC + JSON.parse, 200', results.limit);
  line('receiver: verify + validate + SQLite dedupe', results.receiver);
  const ratios = (base: Load[]) => ({
    rps: results.receiver.map((r, i) => r.rps / (base[i]?.rps ?? Number.NaN)),
    cpu: results.receiver.map((r, i) => (base[i]?.cpuUs ?? Number.NaN) / r.cpuUs),
  });
  const toBare = ratios(results.bare);
  const toLimit = ratios(results.limit);
  console.log(
    `  ratio receiver / bare, per round: ${spread(toBare.rps)} req/s, ${spread(toBare.cpu)} by server CPU per request (target ≥ 0.60× req/s): ${verdict(median(toBare.rps) >= 0.6, machine)}`,
  );
  console.log(
    `  ratio receiver / limit (HMAC + JSON.parse), per round: ${spread(toLimit.rps)} req/s, ${spread(toLimit.cpu)} by server CPU per request (target ≥ 0.75× req/s and by CPU): ${verdict(median(toLimit.rps) >= 0.75 && median(toLimit.cpu) >= 0.75, machine)}`,
  );
  console.log(
    `  events handled by the receiver: ${handled}; answers that were not a processed event: ${unprocessed}${unprocessed === 0 ? '' : ' (NOT a clean run)'}\n`,
  );
  await bare.close();
  await limit.close();
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
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-receive-bench-'));
  try {
    console.log(`node ${process.version}, ${os.cpus().length} CPUs`);
    const machine = startLoad();
    console.log('');
    if (only === undefined || only === 'petstore') await httpBench(dir, machine);
    if (only === undefined || only === 'github') await githubBench(machine);
    if (only === undefined || only === 'pipeline') await pipelineBench(dir);
    if (only === undefined || only === 'brokers') await brokerBench(dir, machine, rounds, signedDelivery);
    console.log(`\n${loadAverage()} after the run`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
