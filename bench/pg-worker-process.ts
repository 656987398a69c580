/**
 * One worker process of the PostgreSQL rows of bench:send:
 *   tsx bench/pg-worker-process.ts <outbox|pgboss> <schema> <receiver url> <concurrency>
 * Prints `ready` once connected, starts on a `go` line on stdin (`warm`: the warm-up, which pg-boss
 * takes from a queue of its own); on `pause` stops working and prints `paused` (the warm-up is over:
 * the next `go` starts the measured run); on `stop` prints `cpu <µs>` (this process's CPU from the
 * last `go` to `stop`), stops and exits.
 * `outbox`: a delivery worker of the PostgreSQL outbox (claim under a lease, sign, POST, complete).
 * `pgboss`: pg-boss at its fastest for the same work: `concurrency / 8` loops each fetching 8 jobs,
 * POSTing their bodies to the receiver (keep-alive, unsigned) and completing them in one call,
 * fetching again at once while work is found (its `work()` waits out a 0.5 s polling floor per batch).
 */
import http from 'node:http';
import readline from 'node:readline';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { createAgents } from '../runtime/deliver/http-attempt.js';
import { postgresOutbox } from '../runtime/deliver/postgres-outbox.js';
import { createWorker } from '../runtime/deliver/worker.js';
import { PGBOSS_QUEUE, PGBOSS_WARMUP_QUEUE } from './lib/pgboss-queues.js';

const [mode, schema, url, concurrencyArg] = process.argv.slice(2);
const concurrency = Number(concurrencyArg ?? 32);
const connectionString = process.env.DATABASE_URL;
if ((mode !== 'outbox' && mode !== 'pgboss') || !schema || !url || !connectionString) {
  process.stderr.write(
    'usage: pg-worker-process.ts <outbox|pgboss> <schema> <url> <concurrency> (DATABASE_URL)\n',
  );
  process.exit(2);
}

const BATCH = 8;

interface BenchWorker {
  go(warmUp: boolean): void;
  pause(): Promise<void>;
  stop(): Promise<void>;
}

async function outboxWorker(): Promise<BenchWorker> {
  const pool = new pg.Pool({ connectionString, max: 8 });
  const outbox = postgresOutbox(pool, { schema: schema as string });
  await outbox.init();
  // A new worker per phase; its keep-alive connections outlive it, as pg-boss's agent does across
  // phases, so the measured run does not open fresh connections where pg-boss reuses its own.
  const agents = createAgents({ maxSockets: concurrency });
  const start = () =>
    createWorker({
      outbox,
      agents,
      urlPolicy: { allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] },
      concurrency,
      pollIntervalMs: 5,
      disableAfterFailures: 0,
    });
  let worker = start();
  return {
    go: () => worker.start(),
    pause: async () => {
      await worker.stop();
      worker = start();
    },
    stop: async () => {
      await worker.stop();
      agents.http.destroy();
      await pool.end();
    },
  };
}

async function bossWorker(): Promise<BenchWorker> {
  const boss = new PgBoss({ connectionString, schema, max: 8, supervise: false, schedule: false });
  boss.on('error', (error) => process.stderr.write(`pg-boss: ${String(error)}\n`));
  await boss.start();
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(`${url}/hook`);
  const post = (body: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  let running = false;
  const loops: Promise<void>[] = [];
  const loop = async (queue: string) => {
    while (running) {
      const jobs = await boss.fetch<{ body: string }>(queue, { batchSize: BATCH });
      if (jobs.length === 0) {
        await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      await Promise.all(jobs.map((job) => post(job.data.body)));
      await boss.complete(
        queue,
        jobs.map((job) => job.id),
      );
    }
  };
  return {
    go: (warmUp) => {
      running = true;
      const queue = warmUp ? PGBOSS_WARMUP_QUEUE : PGBOSS_QUEUE;
      for (let i = 0; i < Math.max(1, Math.floor(concurrency / BATCH)); i++) loops.push(loop(queue));
    },
    pause: async () => {
      running = false;
      await Promise.all(loops.splice(0));
    },
    stop: async () => {
      running = false;
      await Promise.all(loops);
      agent.destroy();
      await boss.stop({ graceful: false, wait: true });
    },
  };
}

const worker = mode === 'outbox' ? await outboxWorker() : await bossWorker();
process.stdout.write('ready\n');
const lines = readline.createInterface({ input: process.stdin });
let cpu0 = process.cpuUsage();
lines.on('line', async (line) => {
  if (line === 'go' || line === 'warm') {
    cpu0 = process.cpuUsage();
    worker.go(line === 'warm');
  }
  if (line === 'pause') {
    await worker.pause();
    process.stdout.write('paused\n');
  }
  if (line === 'stop') {
    const cpu = process.cpuUsage(cpu0);
    process.stdout.write(`cpu ${cpu.user + cpu.system}\n`);
    await worker.stop();
    process.stdout.write('stopped\n');
    process.exit(0);
  }
});
