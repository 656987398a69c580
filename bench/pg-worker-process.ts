/**
 * One worker process of the PostgreSQL rows of bench:send:
 *   tsx bench/pg-worker-process.ts <outbox|pgboss|graphile> <receiver url> <concurrency> <application_name> [pg-boss schema]
 * (DATABASE_URL). The process lives for the whole bench and works through one run after another;
 * the bench drives it with lines on stdin, each with an id the reply repeats:
 *   `prep <id> <json>`  set up the next run, nothing worked yet → `prepped <id>`
 *                       (outbox `{schema}`, pg-boss `{queue, layout}`, graphile `{schema, layout}`)
 *   `go <id>`           start working the run's jobs (no reply: the bench watches the database)
 *   `pause <id>`        stop working, let what is in flight finish → `paused <id> <jobs handled>`
 *   `exit <id>`         close everything → `bye <id>`, exit
 * BENCH_WORKER_PROFILE_DIR: see `startProfiler` below.
 * Every pool it opens carries the given application_name, so the bench can tell its PostgreSQL
 * backends (and their CPU) apart. Its own CPU the bench reads from /proc.
 * `outbox`: a delivery worker of the PostgreSQL outbox (claim under a lease, sign, POST, complete),
 * `concurrency` deliveries in flight.
 * `pgboss`: pg-boss in the layout the run names (bench/lib/pgboss-queues.ts): hand-written fetch
 * loops or its own `work()`; each job's body is POSTed to the receiver (keep-alive, unsigned, at most
 * `concurrency` sockets) and the job completed.
 * `graphile`: graphile-worker's `run()` in the run's layout (bench/lib/graphile-layouts.ts), the task
 * POSTing the body the same way.
 */
import fs from 'node:fs';
import http from 'node:http';
import inspector from 'node:inspector';
import readline from 'node:readline';
import type { Runner } from 'graphile-worker';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { createAgents } from '../runtime/deliver/http-attempt.js';
import { postgresOutbox } from '../runtime/deliver/postgres-outbox.js';
import { createWorker } from '../runtime/deliver/worker.js';
import { type GraphileLayout, graphilePool, startGraphile } from './lib/graphile-layouts.js';
import type { PgBossLayout } from './lib/pgboss-queues.js';

const [mode, url, concurrencyArg, applicationName, bossSchema] = process.argv.slice(2);
const concurrency = Number(concurrencyArg ?? 32);
const connectionString = process.env.DATABASE_URL;
if (
  (mode !== 'outbox' && mode !== 'pgboss' && mode !== 'graphile') ||
  !url ||
  !applicationName ||
  !connectionString ||
  (mode === 'pgboss' && !bossSchema)
) {
  process.stderr.write(
    'usage: pg-worker-process.ts <outbox|pgboss|graphile> <url> <concurrency> <application_name> [pg-boss schema] (DATABASE_URL)\n',
  );
  process.exit(2);
}

interface Prep {
  readonly schema?: string;
  readonly queue?: string;
  readonly layout?: PgBossLayout | GraphileLayout;
}

interface BenchWorker {
  prep(run: Prep): Promise<void>;
  go(): void;
  /** Stops, waits for what is in flight; the jobs handled since `go`. */
  pause(): Promise<number>;
  close(): Promise<void>;
}

/** POSTs a body to the receiver's /hook over the given keep-alive agent; 200 or it throws. */
function poster(agent: http.Agent): (body: string) => Promise<void> {
  const target = new URL(`${url}/hook`);
  return (body) =>
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
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function outboxWorker(): Promise<BenchWorker> {
  const pool = new pg.Pool({ connectionString, max: 8, application_name: applicationName });
  // Keep-alive connections outlive each run's worker, as the peers' agents do across runs.
  const agents = createAgents({ maxSockets: concurrency });
  let worker: ReturnType<typeof createWorker> | undefined;
  return {
    prep: async ({ schema }) => {
      const outbox = postgresOutbox(pool, { schema: schema as string });
      await outbox.init();
      worker = createWorker({
        outbox,
        agents,
        urlPolicy: { allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] },
        concurrency,
        pollIntervalMs: 5,
        disableAfterFailures: 0,
      });
    },
    go: () => worker?.start(),
    pause: async () => {
      await worker?.stop();
      worker = undefined;
      return Number.NaN;
    },
    close: async () => {
      agents.http.destroy();
      await pool.end();
    },
  };
}

async function bossWorker(): Promise<BenchWorker> {
  const boss = new PgBoss({
    connectionString,
    schema: bossSchema,
    max: 8,
    supervise: false,
    schedule: false,
    application_name: applicationName,
  });
  boss.on('error', (error) => process.stderr.write(`pg-boss: ${String(error)}\n`));
  await boss.start();
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const post = poster(agent);
  let run: Required<Pick<Prep, 'queue'>> & { layout: PgBossLayout } = {
    queue: '',
    layout: { api: 'fetch', loops: 1, batch: 32, awaitComplete: true },
  };
  let running = false;
  let handled = 0;
  const loops: Promise<void>[] = [];
  const completions = new Set<Promise<unknown>>();
  let inFlight = 0;
  const loop = async (queue: string, batch: number, awaitComplete: boolean) => {
    while (running) {
      const jobs = await boss.fetch<{ body: string }>(queue, { batchSize: batch });
      if (jobs.length === 0) {
        await sleep(5);
        continue;
      }
      await Promise.all(jobs.map((job) => post(job.data.body)));
      handled += jobs.length;
      const done = boss.complete(
        queue,
        jobs.map((job) => job.id),
      );
      if (awaitComplete) await done;
      else {
        const tracked = done.catch((error) => process.stderr.write(`pg-boss complete: ${String(error)}\n`));
        completions.add(tracked);
        void tracked.then(() => completions.delete(tracked));
      }
    }
  };
  return {
    prep: async ({ queue, layout }) => {
      run = { queue: queue as string, layout: layout as PgBossLayout };
    },
    go: () => {
      running = true;
      handled = 0;
      const { queue, layout } = run;
      if (layout.api === 'fetch') {
        for (let i = 0; i < layout.loops; i++) loops.push(loop(queue, layout.batch, layout.awaitComplete));
        return;
      }
      for (let i = 0; i < layout.workers; i++) {
        void boss.work<{ body: string }>(
          queue,
          { batchSize: layout.batch, pollingIntervalSeconds: layout.pollingIntervalSeconds },
          async (jobs) => {
            inFlight++;
            try {
              await Promise.all(jobs.map((job) => post(job.data.body)));
              handled += jobs.length;
            } finally {
              inFlight--;
            }
          },
        );
      }
    },
    pause: async () => {
      running = false;
      await Promise.all(loops.splice(0));
      if (run.layout.api === 'work') {
        await boss.offWork(run.queue);
        // offWork() returns before its workers have stopped; wait until no handler has run for a while.
        let quiet = 0;
        while (quiet < 5) {
          await sleep(20);
          quiet = inFlight === 0 ? quiet + 1 : 0;
        }
      }
      await Promise.all([...completions]);
      return handled;
    },
    close: async () => {
      agent.destroy();
      await boss.stop({ graceful: false, wait: true });
    },
  };
}

async function graphileWorker(): Promise<BenchWorker> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const post = poster(agent);
  let pool: pg.Pool | undefined;
  let poolSize = 0;
  let next: { schema: string; layout: GraphileLayout } | undefined;
  let runner: Promise<Runner> | undefined;
  let handled = 0;
  return {
    prep: async ({ schema, layout }) => {
      const l = layout as GraphileLayout;
      next = { schema: schema as string, layout: l };
      const size = Math.max(10, l.concurrency + 2);
      if (pool === undefined || poolSize !== size) {
        await pool?.end();
        pool = graphilePool(connectionString as string, applicationName as string, l.concurrency);
        poolSize = size;
        // Open the connections now, not in the measured window (graphile-worker holds a listener too).
        const clients = await Promise.all(
          Array.from({ length: Math.min(size, l.concurrency + 1) }, () => pool?.connect()),
        );
        for (const c of clients) c?.release();
      }
    },
    go: () => {
      handled = 0;
      if (!next || !pool) return;
      runner = startGraphile(pool, next.schema, next.layout, async (payload) => {
        await post((payload as { body: string }).body);
        handled++;
      });
      runner.catch((error) => process.stderr.write(`graphile-worker: ${String(error)}\n`));
    },
    pause: async () => {
      const r = await runner;
      runner = undefined;
      await r?.stop();
      return handled;
    },
    close: async () => {
      agent.destroy();
      await pool?.end();
    },
  };
}

/**
 * BENCH_WORKER_PROFILE_DIR: a CPU profile of each run, from `go` to `pause`, written there as
 * `<application_name>-<pid>-<n>.cpuprofile` (Node's `--cpu-prof` writes only at a clean exit, which
 * the bench's processes do not reach before they are stopped).
 */
const profileDir = process.env.BENCH_WORKER_PROFILE_DIR;
const profiler = profileDir === undefined ? undefined : await startProfiler(profileDir);

async function startProfiler(dir: string): Promise<{ start(): Promise<void>; stop(): Promise<void> }> {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await post('Profiler.enable');
  fs.mkdirSync(dir, { recursive: true });
  let n = 0;
  return {
    start: async () => {
      await post('Profiler.start');
    },
    stop: async () => {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      fs.writeFileSync(`${dir}/${applicationName}-${process.pid}-${++n}.cpuprofile`, JSON.stringify(profile));
    },
  };
}

const worker =
  mode === 'outbox' ? await outboxWorker() : mode === 'pgboss' ? await bossWorker() : await graphileWorker();
process.stdout.write('ready\n');
const lines = readline.createInterface({ input: process.stdin });
// One command at a time, in order (a pause must not overtake the go before it).
let queue: Promise<void> = Promise.resolve();
lines.on('line', (line) => {
  const [command, id = '', ...rest] = line.split(' ');
  queue = queue
    .then(async () => {
      if (command === 'prep') {
        await worker.prep(JSON.parse(rest.join(' ')) as Prep);
        process.stdout.write(`prepped ${id}\n`);
      } else if (command === 'go') {
        await profiler?.start();
        worker.go();
      } else if (command === 'pause') {
        const handled = await worker.pause();
        await profiler?.stop();
        process.stdout.write(`paused ${id} ${handled}\n`);
      } else if (command === 'exit') {
        await worker.close();
        process.stdout.write(`bye ${id}\n`);
        process.exit(0);
      }
    })
    .catch((error) => {
      process.stderr.write(`${mode} worker: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    });
});
