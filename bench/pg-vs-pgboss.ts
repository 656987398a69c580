/**
 * The PostgreSQL rows of bench:send: our PostgreSQL outbox against two PostgreSQL job queues, pg-boss
 * and graphile-worker, on the same database, the same local receiver (a process of its own) and
 * separate worker processes, each peer in the layout its own users would tune it to.
 *
 * 1. Pilot: one warmed worker process per peer works through a backlog in each of the peer's layouts
 *    (pg-boss: fetch loops × batch 1×32, 2×16, 4×8, `complete()` awaited or not, and its own
 *    `work()` at the 0.5 s polling floor; graphile-worker: `run()` at concurrency 8 and 32, with and
 *    without its batching — bench/lib/pgboss-queues.ts, bench/lib/graphile-layouts.ts), a few passes
 *    in alternating order, each run capped in time (a slow layout is measured on what it finished).
 *    The best median jobs/s is the peer's layout for the rest.
 * 2. Paired rounds: ours against each peer's layout, back to back, the order alternating from round to
 *    round, at 1 and 2 worker processes; and ours at 8 processes against ours at 2 (a contention
 *    check: more processes than cores). The medians of the per-pair ratios are reported, with
 *    their range, and the load average before and during the runs.
 * 3. Whole-system CPU per delivered job, each part from /proc over the timed window: the worker
 *    processes, their PostgreSQL backends (told apart by the application_name each pool carries),
 *    the server's own processes (walwriter, checkpointer…: "background", whoever caused it), the
 *    receiver process. The bench's own polling and its backend are left out.
 *
 * Every worker process lives for the whole bench (so it is as warm for its last run as a deployed
 * worker is) and first works through BENCH_PG_WARMUP jobs; every run then starts on a new backlog in
 * tables of its own: the outbox a new schema, pg-boss a new queue (partition), graphile-worker its
 * truncated job tables (this server may run without autovacuum: no run inherits another's dead
 * rows). The peers' backlogs are bulk-inserted with their own APIs (`insert()`, `addJobs()`); the
 * outbox's is enqueued once through `send()` and copied into each run's schema (see outboxSystem).
 * Schemas are named `gwb_<pid>_…`, application names `gwb<pid>-…`.
 * A pilot run stopped at its cap stops graphile-worker with jobs still in its local queue; 0.17.3 may
 * then log "Releasing local queue failed: Cannot background something when the queue is already
 * released" (its own shutdown race; the run's jobs are discarded with the run, nothing else changes).
 *
 * Knobs (environment):
 *   BENCH_PG_MESSAGES=8000      jobs per measured run (backlog enqueued before the timed part)
 *   BENCH_PG_ROUNDS=3           paired rounds
 *   BENCH_PG_PROCESSES=1,2      worker processes per side in the paired rounds
 *   BENCH_PG_CONTENTION=8       ours at this many processes vs ours at BENCH_PG_CONTENTION_BASE=2 (0: skip)
 *   BENCH_PG_WARMUP=3000        jobs per worker process before anything is measured (0: fresh processes)
 *   BENCH_PG_PILOT_JOBS=<BENCH_PG_MESSAGES>  backlog per pilot run, as deep as the measured runs'
 *                               (0: no pilot, the default layouts below)
 *   BENCH_PG_PILOT_MS=2500      time cap of a pilot run, ms
 *   BENCH_PG_PILOT_PASSES=2     pilot passes (alternating order; median per layout); after the first,
 *                               only layouts at ≥ BENCH_PG_PILOT_FINALISTS=0.7× the best first pass
 *   BENCH_PG_PEERS=pgboss,graphile   which peers run
 *   BENCH_PG_RUN_TIMEOUT_MS=180000    a run not drained by then fails the bench
 *   BENCH_CONCURRENCY=32        deliveries in flight per outbox process, sockets per peer process
 *   BENCH_WORKER_NODE_ARGS      extra node flags for the worker processes (e.g. `--cpu-prof`)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeWorkerUtils, runMigrations, type WorkerUtils } from 'graphile-worker';
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { Contract, EventMapBase } from '../runtime/contract.js';
import { postgresOutbox } from '../runtime/deliver/postgres-outbox.js';
import { createSender } from '../runtime/deliver/sender.js';
import { createEndpointManager } from '../runtime/manage/endpoints.js';
import {
  GRAPHILE_LAYOUTS,
  GRAPHILE_TASK,
  type GraphileLayout,
  graphileLayoutName,
  quietLogger,
} from './lib/graphile-layouts.js';
import { spread } from './lib/load.js';
import { LOCAL } from './lib/order-contract.js';
import { PGBOSS_LAYOUTS, type PgBossLayout, pgBossLayoutName, pgBossQueue } from './lib/pgboss-queues.js';
import { BACKGROUND, machineTicks, PgBackendCpu, procCpuSeconds } from './lib/proc-cpu.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const script = path.join(here, 'pg-worker-process.ts');
const require = createRequire(import.meta.url);
const versionOf = (name: string) => (require(`${name}/package.json`) as { version: string }).version;

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const MESSAGES = env('BENCH_PG_MESSAGES', 8000);
const ROUNDS = env('BENCH_PG_ROUNDS', 3);
const PROCESSES = (process.env.BENCH_PG_PROCESSES ?? '1,2').split(',').filter(Boolean).map(Number);
const CONTENTION = env('BENCH_PG_CONTENTION', 8);
const CONTENTION_BASE = env('BENCH_PG_CONTENTION_BASE', 2);
// V8 takes a few thousand jobs to compile a worker's hot paths; the processes live across runs, so
// this is paid once per process.
const WARMUP = env('BENCH_PG_WARMUP', 3000);
const PILOT_JOBS = env('BENCH_PG_PILOT_JOBS', MESSAGES);
const PILOT_MS = env('BENCH_PG_PILOT_MS', 2500);
const PILOT_PASSES = env('BENCH_PG_PILOT_PASSES', 2);
const PILOT_FINALISTS = env('BENCH_PG_PILOT_FINALISTS', 0.7);
const PEERS = (process.env.BENCH_PG_PEERS ?? 'pgboss,graphile').split(',').filter(Boolean);
/** A run that has not drained by then has failed (a job stuck in retries, a worker gone). */
const RUN_TIMEOUT_MS = env('BENCH_PG_RUN_TIMEOUT_MS', 180_000);

/** Used without a pilot (BENCH_PG_PILOT_JOBS=0), and for the warm-up. */
const PGBOSS_DEFAULT: PgBossLayout = { api: 'fetch', loops: 1, batch: 32, awaitComplete: false };
const GRAPHILE_DEFAULT: GraphileLayout = GRAPHILE_LAYOUTS.at(-1) as GraphileLayout;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

export const loadAverage = (): string =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

const fmt = (n: number) => `${Math.round(n).toLocaleString('en-US')}/s`;

// ---------------------------------------------------------------------------------------------
// Child processes: the receiver and the workers.

export interface Receiver {
  readonly url: string;
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/** A bare keep-alive node:http server answering 200 to every POST, in a process of its own. */
export async function startReceiverProcess(): Promise<Receiver> {
  const code = `
    const http = require('node:http');
    const server = http.createServer({ keepAliveTimeout: 30000 }, (req, res) => {
      req.on('data', () => {});
      req.on('end', () => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('ok'); });
    });
    server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
    process.stdin.on('end', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
    process.stdin.resume();
  `;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('exit', (code) => reject(new Error(`receiver exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin.end();
      await exited;
    },
  };
}

class WorkerProc {
  private buffer = '';
  private readonly lines: string[] = [];
  private readonly waiters: Array<{
    prefix: string;
    resolve: (line: string) => void;
    reject: (e: Error) => void;
  }> = [];
  private nextId = 1;
  private exited = false;

  constructor(
    readonly child: ChildProcess,
    readonly name: string,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString();
      let nl = this.buffer.indexOf('\n');
      while (nl >= 0) {
        this.lines.push(this.buffer.slice(0, nl));
        this.buffer = this.buffer.slice(nl + 1);
        nl = this.buffer.indexOf('\n');
      }
      this.match();
    });
    child.once('exit', (code) => {
      this.exited = true;
      for (const w of this.waiters.splice(0)) w.reject(new Error(`${name} worker process exited (${code})`));
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  private match(): void {
    for (const w of [...this.waiters]) {
      const i = this.lines.findIndex((l) => l === w.prefix || l.startsWith(`${w.prefix} `));
      if (i < 0) continue;
      const [line] = this.lines.splice(i, 1);
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.resolve(line as string);
    }
  }

  wait(prefix: string): Promise<string> {
    if (this.exited) return Promise.reject(new Error(`${this.name} worker process has exited`));
    return new Promise((resolve, reject) => {
      this.waiters.push({ prefix, resolve, reject });
      this.match();
    });
  }

  /** Sends `command <id> [json]` and resolves with the reply line (`reply <id> …`). */
  call(command: 'prep' | 'pause' | 'exit', reply: string, payload?: unknown): Promise<string> {
    const id = this.nextId++;
    const line = payload === undefined ? `${command} ${id}` : `${command} ${id} ${JSON.stringify(payload)}`;
    const answer = this.wait(`${reply} ${id}`);
    this.child.stdin?.write(`${line}\n`);
    return answer;
  }

  go(): void {
    this.child.stdin?.write(`go ${this.nextId++}\n`);
  }

  async exit(): Promise<void> {
    if (this.exited) return;
    await Promise.race([this.call('exit', 'bye'), sleep(10_000)]).catch(() => undefined);
    if (!this.exited) this.child.kill('SIGKILL');
  }
}

async function spawnWorker(args: readonly string[], name: string): Promise<WorkerProc> {
  const extra = process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...extra, '--import', 'tsx', script, ...args], {
    env: process.env,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const proc = new WorkerProc(child, name);
  await proc.wait('ready');
  return proc;
}

// ---------------------------------------------------------------------------------------------
// The three systems: how a run's backlog is made, watched, checked and dropped.

/** One run's backlog in tables of its own. */
export interface Backlog {
  /** What the worker processes are told in `prep` (besides the layout). */
  readonly prep: Record<string, unknown>;
  /** Whether any job is still queued or in flight. */
  open(): Promise<boolean>;
  /** How many are (for a run stopped at its time cap). */
  remaining(): Promise<number>;
  /** Every job done exactly as it should be, or it throws. */
  check(jobs: number): Promise<void>;
  drop(): Promise<void>;
}

export interface System<L> {
  /** `outbox`, `pg-boss`, `graphile-worker`. */
  readonly name: string;
  /** The application_name of the worker processes' pools. */
  readonly app: string;
  readonly procs: WorkerProc[];
  backlog(jobs: number): Promise<Backlog>;
  close(): Promise<void>;
  /** How its backlogs are made, if worth saying. */
  readonly note?: string;
  /** Marker type: the layouts this system's processes take. */
  readonly layout?: L;
}

export interface Env<M extends EventMapBase> {
  readonly contract: Contract<M>;
  readonly send: (sender: ReturnType<typeof createSender<M>>, i: number) => Promise<unknown>;
  readonly body: (i: number) => string;
  readonly concurrency: number;
  readonly url: string;
  readonly control: pg.Pool;
  readonly tag: string;
}

let runCounter = 0;

/** Enqueues `count` messages, 64 at a time (their order does not matter here). */
async function sendAll(count: number, send: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < count; i += 64) {
    await Promise.all(Array.from({ length: Math.min(64, count - i) }, (_, j) => send(i + j)));
  }
}

/**
 * The outbox's backlog is enqueued once through the real `send()` into a template schema (on this
 * machine `send()` manages about 1,000–1,500 messages/s, which would make enqueueing most of the
 * bench's wall time); each run of that size gets a new schema (made by the outbox's own `init()`)
 * and a copy of the template's endpoint, message and delivery rows: the rows `send()` wrote, all
 * due. Other sizes are enqueued through `send()`.
 */
export async function outboxSystem<M extends EventMapBase>(
  e: Env<M>,
  count: number,
  templateSize: number,
): Promise<System<undefined>> {
  const app = `${e.tag}-outbox`;
  const procs = await Promise.all(
    Array.from({ length: count }, () => spawnWorker(['outbox', e.url, String(e.concurrency), app], 'outbox')),
  );
  const enqueue = async (schema: string, jobs: number) => {
    const outbox = postgresOutbox(e.control, { schema });
    const manager = createEndpointManager({ outbox, contract: e.contract, urlPolicy: LOCAL });
    await manager.register({ url: `${e.url}/hook`, events: ['*'] });
    const sender = createSender(e.contract, { outbox });
    await sendAll(jobs, (i) => e.send(sender, i));
    return outbox;
  };
  const template = `gwb_${process.pid}_outbox_template`;
  await e.control.query(`DROP SCHEMA IF EXISTS "${template}" CASCADE`);
  const t0 = performance.now();
  await enqueue(template, templateSize);
  const enqueueRate = templateSize / ((performance.now() - t0) / 1000);
  const copy = async (schema: string) => {
    const client = await e.control.connect();
    try {
      await client.query('BEGIN');
      for (const table of ['endpoints', 'messages', 'deliveries']) {
        await client.query(
          `INSERT INTO "${schema}"."webhook_${table}" SELECT * FROM "${template}"."webhook_${table}"`,
        );
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  };
  return {
    name: 'outbox',
    app,
    procs,
    note: `backlog enqueued once through send() (${fmt(enqueueRate)}) and copied into each run's schema`,
    backlog: async (jobs) => {
      const schema = `gwb_${process.pid}_outbox_${++runCounter}`;
      await e.control.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      let outbox: ReturnType<typeof postgresOutbox>;
      if (jobs === templateSize) {
        outbox = postgresOutbox(e.control, { schema });
        await outbox.init();
        await copy(schema);
      } else {
        outbox = await enqueue(schema, jobs);
      }
      return {
        prep: { schema },
        open: async () => (await outbox.nextDueAt()) !== undefined,
        remaining: async () => {
          const done = await outbox.listDeliveries({ status: 'succeeded', limit: jobs + 1 });
          return jobs - done.length;
        },
        check: async (n) => {
          const done = await outbox.listDeliveries({ status: 'succeeded', limit: n + 1 });
          if (done.length !== n) throw new Error(`outbox: ${done.length}/${n} delivered`);
        },
        drop: async () => {
          await e.control.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        },
      };
    },
    close: async () => {
      await Promise.all(procs.map((p) => p.exit()));
      await e.control.query(`DROP SCHEMA IF EXISTS "${template}" CASCADE`);
    },
  };
}

async function pgBossSystem<M extends EventMapBase>(e: Env<M>, count: number): Promise<System<PgBossLayout>> {
  const app = `${e.tag}-pgboss`;
  const schema = `gwb_${process.pid}_pgboss`;
  await e.control.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  const boss = new PgBoss({
    connectionString: process.env.DATABASE_URL,
    schema,
    max: 4,
    supervise: false,
    schedule: false,
    application_name: `${e.tag}-ctl`,
  });
  boss.on('error', (error) => console.error('pg-boss:', error));
  await boss.start();
  const procs = await Promise.all(
    Array.from({ length: count }, () =>
      spawnWorker(['pgboss', e.url, String(e.concurrency), app, schema], 'pg-boss'),
    ),
  );
  return {
    name: 'pg-boss',
    app,
    procs,
    backlog: async (jobs) => {
      const queue = pgBossQueue(++runCounter);
      await boss.createQueue(queue);
      for (let i = 0; i < jobs; i += 1000) {
        await boss.insert(
          Array.from({ length: Math.min(1000, jobs - i) }, (_, j) => ({
            name: queue,
            data: { body: e.body(i + j) },
          })),
        );
      }
      const count = async (where: string) =>
        Number(
          (
            await e.control.query(`SELECT count(*) AS n FROM "${schema}".job WHERE name = $1 AND ${where}`, [
              queue,
            ])
          ).rows[0].n,
        );
      return {
        prep: { queue },
        // One row found is enough (a count would read every open job on each poll).
        open: async () =>
          (
            await e.control.query(
              `SELECT 1 FROM "${schema}".job WHERE name = $1 AND state IN ('created', 'retry', 'active') LIMIT 1`,
              [queue],
            )
          ).rows.length > 0,
        remaining: () => count(`state <> 'completed'`),
        check: async (n) => {
          const completed = await count(`state = 'completed'`);
          if (completed !== n) throw new Error(`pg-boss: ${completed}/${n} completed`);
        },
        // pg-boss 10.4.2's delete_queue() deletes the queue row before dropping its partition, and the
        // (deferred) foreign key from a partition that still has rows rejects that: drop the partition first.
        drop: async () => {
          const { rows } = await e.control.query<{ partition_name: string }>(
            `SELECT partition_name FROM "${schema}".queue WHERE name = $1`,
            [queue],
          );
          if (rows[0]) await e.control.query(`DROP TABLE IF EXISTS "${schema}"."${rows[0].partition_name}"`);
          await boss.deleteQueue(queue);
        },
      };
    },
    close: async () => {
      await Promise.all(procs.map((p) => p.exit()));
      await boss.stop({ graceful: false, wait: true }).catch(() => undefined);
      await e.control.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
}

async function graphileSystem<M extends EventMapBase>(
  e: Env<M>,
  count: number,
): Promise<System<GraphileLayout>> {
  const app = `${e.tag}-graphile`;
  const schema = `gwb_${process.pid}_graphile`;
  await e.control.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await runMigrations({ pgPool: e.control, schema, logger: quietLogger });
  const utils: WorkerUtils = await makeWorkerUtils({ pgPool: e.control, schema, logger: quietLogger });
  const truncate = () =>
    e.control.query(`TRUNCATE "${schema}"._private_jobs, "${schema}"._private_job_queues`);
  const procs = await Promise.all(
    Array.from({ length: count }, () =>
      spawnWorker(['graphile', e.url, String(e.concurrency), app], 'graphile-worker'),
    ),
  );
  const remaining = async () =>
    Number((await e.control.query(`SELECT count(*) AS n FROM "${schema}"._private_jobs`)).rows[0].n);
  return {
    name: 'graphile-worker',
    app,
    procs,
    backlog: async (jobs) => {
      await truncate();
      for (let i = 0; i < jobs; i += 1000) {
        await utils.addJobs(
          Array.from({ length: Math.min(1000, jobs - i) }, (_, j) => ({
            identifier: GRAPHILE_TASK,
            payload: { body: e.body(i + j) },
          })),
        );
      }
      return {
        prep: { schema },
        // A job is deleted once completed; a failed one stays (with its next run_at).
        open: async () =>
          (await e.control.query(`SELECT 1 FROM "${schema}"._private_jobs LIMIT 1`)).rows.length > 0,
        remaining,
        check: async (n) => {
          const left = await remaining();
          if (left !== 0) throw new Error(`graphile-worker: ${n - left}/${n} completed`);
        },
        drop: async () => {
          await truncate();
        },
      };
    },
    close: async () => {
      await Promise.all(procs.map((p) => p.exit()));
      await utils.release();
      await e.control.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// One run.

export interface Run {
  readonly system: string;
  readonly processes: number;
  readonly rate: number;
  readonly jobs: number;
  readonly capped: boolean;
  /** CPU per delivered job, µs: the worker processes, their backends, the server's own, the receiver. */
  readonly cpu: { workers: number; backends: number; background: number; receiver: number; total: number };
  readonly idleShare: number;
  readonly stealShare: number;
  /** 1-minute load average at the end of the timed window. */
  readonly load: number;
}

interface Measuring {
  readonly control: pg.Pool;
  readonly labels: ReadonlyMap<string, string>;
  readonly receiver: Receiver;
}

/**
 * Polls `backlog` every 5 ms until nothing is queued or in flight, or `capMs` has passed, calling
 * `sample` about every 100 ms; returns how many polls it made (each one statement of the bench's own)
 * and whether the cap cut it short. Not drained within `timeoutMs`: an error naming `name`.
 */
export async function drainBacklog(
  backlog: Backlog,
  name: string,
  options: { readonly timeoutMs: number; readonly capMs?: number; readonly sample?: () => Promise<void> },
): Promise<{ polls: number; capped: boolean }> {
  const start = performance.now();
  let polls = 0;
  let sampled = start;
  for (;;) {
    polls++;
    if (!(await backlog.open())) return { polls, capped: false };
    const now = performance.now();
    if (options.capMs !== undefined && now - start >= options.capMs) return { polls, capped: true };
    if (now - start > options.timeoutMs) throw new Error(`${name}: not drained in ${options.timeoutMs} ms`);
    if (options.sample && now - sampled >= 100) {
      await options.sample();
      sampled = now;
    }
    await sleep(5);
  }
}

async function runOnce<L>(
  m: Measuring,
  system: System<L>,
  processes: number,
  jobs: number,
  layout: L | undefined,
  capMs?: number,
): Promise<Run> {
  const backlog = await system.backlog(jobs);
  try {
    const procs = system.procs.slice(0, processes);
    await Promise.all(procs.map((p) => p.call('prep', 'prepped', { ...backlog.prep, layout })));
    const sampler = new PgBackendCpu(m.control, m.labels);
    await sampler.start();
    const workers0 = procs.map((p) => procCpuSeconds(p.pid));
    const receiver0 = procCpuSeconds(m.receiver.pid);
    const machine0 = machineTicks();
    const start = performance.now();
    for (const p of procs) p.go();
    const { capped } = await drainBacklog(backlog, system.name, {
      timeoutMs: RUN_TIMEOUT_MS,
      ...(capMs !== undefined ? { capMs } : {}),
      sample: () => sampler.sample(),
    });
    const elapsed = (performance.now() - start) / 1000;
    const done = capped ? jobs - (await backlog.remaining()) : jobs;
    const workers = procs.reduce((sum, p, i) => sum + procCpuSeconds(p.pid) - (workers0[i] as number), 0);
    const receiver = procCpuSeconds(m.receiver.pid) - receiver0;
    const machine = machineTicks();
    const pgCpu = await sampler.stop();
    const load = os.loadavg()[0] ?? 0;
    await Promise.all(procs.map((p) => p.call('pause', 'paused')));
    if (!capped) await backlog.check(jobs);
    const ticks = machine.total - machine0.total;
    const per = (seconds: number) => (done > 0 ? (seconds * 1e6) / done : Number.NaN);
    const cpu = {
      workers: per(workers),
      backends: per(pgCpu.get(system.name) ?? 0),
      background: per(pgCpu.get(BACKGROUND) ?? 0),
      receiver: per(receiver),
      total: 0,
    };
    cpu.total = cpu.workers + cpu.backends + cpu.background + cpu.receiver;
    return {
      system: system.name,
      processes,
      rate: done / elapsed,
      jobs: done,
      capped,
      cpu,
      idleShare: ticks > 0 ? (machine.idle - machine0.idle) / ticks : Number.NaN,
      stealShare: ticks > 0 ? (machine.steal - machine0.steal) / ticks : Number.NaN,
      load,
    };
  } finally {
    await backlog.drop();
  }
}

const cpuLine = (r: Run) =>
  `${Math.round(r.cpu.workers)} + ${Math.round(r.cpu.backends)} + ${Math.round(r.cpu.background)} + ${Math.round(r.cpu.receiver)} = ${Math.round(r.cpu.total)} µs CPU/job`;
const runLine = (r: Run) =>
  `${r.system} ${fmt(r.rate)} (${cpuLine(r)}, ${Math.round(r.idleShare * 100)}% idle, ${Math.round(r.stealShare * 100)}% steal)`;

// ---------------------------------------------------------------------------------------------
// The pilot.

async function pilot<L>(
  m: Measuring,
  system: System<L>,
  layouts: readonly L[],
  name: (l: L) => string,
): Promise<L> {
  const rates = layouts.map((): number[] => []);
  const capped = layouts.map(() => false);
  const t0 = performance.now();
  let order = layouts.map((_, i) => i);
  for (let pass = 0; pass < PILOT_PASSES; pass++) {
    if (pass === 1) {
      // Later passes only for the layouts within reach of the best first pass (a layout at a tenth of
      // the best is not the best on a rerun).
      const top = Math.max(...rates.map((r) => r[0] ?? 0));
      order = order.filter((i) => (rates[i]?.[0] ?? 0) >= PILOT_FINALISTS * top);
    }
    order.reverse();
    for (const i of order) {
      const r = await runOnce(m, system, 1, PILOT_JOBS, layouts[i], PILOT_MS);
      rates[i]?.push(r.rate);
      if (r.capped) capped[i] = true;
    }
  }
  const medians = rates.map((r) => median(r));
  const best = medians.indexOf(Math.max(...medians));
  console.log(
    `pilot, ${system.name} (1 process, ${PILOT_JOBS} jobs per run, capped at ${PILOT_MS} ms; ${PILOT_PASSES} passes in alternating order, ` +
      `after the first only layouts ≥ ${PILOT_FINALISTS}× the best; median jobs/s of the passes):`,
  );
  layouts.forEach((l, i) => {
    const passes = (rates[i] ?? []).map((r) => Math.round(r).toLocaleString('en-US')).join(', ');
    console.log(
      `  ${i === best ? '→' : ' '} ${name(l).padEnd(78)} ${fmt(medians[i] as number).padStart(9)}  (${passes}${capped[i] ? '; capped' : ''})`,
    );
  });
  console.log(
    `  layout chosen for ${system.name}: ${name(layouts[best] as L)} (pilot ${((performance.now() - t0) / 1000).toFixed(0)} s)`,
  );
  return layouts[best] as L;
}

// ---------------------------------------------------------------------------------------------
// The whole PostgreSQL part.

export interface PostgresBenchInput<M extends EventMapBase> {
  readonly contract: Contract<M>;
  readonly send: (sender: ReturnType<typeof createSender<M>>, i: number) => Promise<unknown>;
  /** The JSON body the peers POST for message i (the outbox builds its own envelope). */
  readonly body: (i: number) => string;
  readonly concurrency: number;
}

interface Peer {
  readonly system: System<unknown>;
  readonly layout: unknown;
  readonly layoutName: string;
}

export async function postgresRows<M extends EventMapBase>(input: PostgresBenchInput<M>): Promise<void> {
  const t0 = performance.now();
  const tag = `gwb${process.pid}`;
  const control = new pg.Pool({
    connectionString: process.env.DATABASE_URL,
    max: 8,
    application_name: `${tag}-ctl`,
    // The bench's own writes (backlogs, drops) need not wait for the WAL flush; the workers' do.
    options: '-c synchronous_commit=off',
  });
  // (graphile-worker, handed this pool, warns unless both handlers are there)
  control.on('error', (error) => console.error('control pool:', error));
  control.on('connect', (client) => client.on('error', (error) => console.error('control pool:', error)));
  const receiver = await startReceiverProcess();
  const e: Env<M> = { ...input, url: receiver.url, control, tag };
  const labels = new Map([
    [`${tag}-outbox`, 'outbox'],
    [`${tag}-pgboss`, 'pg-boss'],
    [`${tag}-graphile`, 'graphile-worker'],
    [`${tag}-ctl`, 'control'],
  ]);
  const m: Measuring = { control, labels, receiver };
  const maxProcs = Math.max(...PROCESSES, 1);
  const oursCount = Math.max(maxProcs, CONTENTION > 0 ? Math.max(CONTENTION, CONTENTION_BASE) : 0);
  const systems: System<unknown>[] = [];
  const loadBefore = os.loadavg()[0] ?? 0;
  console.log(
    `\nPostgreSQL: outbox (claim, sign, POST, complete) vs ${[
      PEERS.includes('pgboss') ? `pg-boss ${versionOf('pg-boss')} (fetch, POST, complete)` : '',
      PEERS.includes('graphile') ? `graphile-worker ${versionOf('graphile-worker')} (run(), POST)` : '',
    ]
      .filter(Boolean)
      .join(' and ')}; ` +
      `${MESSAGES} jobs per run, concurrency ${input.concurrency} per process, separate worker processes, ` +
      `receiver in a process of its own; load average ${loadAverage()} before (${os.cpus().length} CPUs)`,
  );
  try {
    const ours = await outboxSystem(e, oursCount, MESSAGES);
    if (ours.note) console.log(`outbox: ${ours.note}`);
    systems.push(ours as System<unknown>);
    const boss = PEERS.includes('pgboss') ? await pgBossSystem(e, maxProcs) : undefined;
    if (boss) systems.push(boss as System<unknown>);
    const graphile = PEERS.includes('graphile') ? await graphileSystem(e, maxProcs) : undefined;
    if (graphile) systems.push(graphile as System<unknown>);

    if (WARMUP > 0) {
      const w0 = performance.now();
      // In runs of the measured size (the outbox's come from its template), until every process has
      // had its share.
      const warm = async <L>(system: System<L>, layout: L | undefined) => {
        const n = system.procs.length;
        for (let done = 0; done < WARMUP * n; done += MESSAGES) await runOnce(m, system, n, MESSAGES, layout);
      };
      await warm(ours, undefined);
      if (boss) await warm(boss, PGBOSS_DEFAULT);
      if (graphile) await warm(graphile, GRAPHILE_DEFAULT);
      console.log(
        `warm-up: every worker process worked through about ${WARMUP} jobs first (${((performance.now() - w0) / 1000).toFixed(0)} s, not measured)`,
      );
    }

    const peers: Peer[] = [];
    if (boss) {
      const layout = PILOT_JOBS > 0 ? await pilot(m, boss, PGBOSS_LAYOUTS, pgBossLayoutName) : PGBOSS_DEFAULT;
      peers.push({ system: boss as System<unknown>, layout, layoutName: pgBossLayoutName(layout) });
    }
    if (graphile) {
      const layout =
        PILOT_JOBS > 0 ? await pilot(m, graphile, GRAPHILE_LAYOUTS, graphileLayoutName) : GRAPHILE_DEFAULT;
      peers.push({ system: graphile as System<unknown>, layout, layoutName: graphileLayoutName(layout) });
    }
    if (PILOT_JOBS <= 0) {
      for (const p of peers)
        console.log(`no pilot (BENCH_PG_PILOT_JOBS=0): ${p.system.name} as ${p.layoutName}`);
    }

    // Paired rounds.
    type Pair = { ours: Run; peer: Run };
    const pairs = new Map<string, Pair[]>();
    const key = (peer: string, n: number) => `${peer}@${n}`;
    const contention: Pair[] = [];
    const loads: number[] = [];
    const pairOf = async (first: () => Promise<Run>, second: () => Promise<Run>, oursFirst: boolean) => {
      const a = await first();
      const b = await second();
      return oursFirst ? { ours: a, peer: b } : { ours: b, peer: a };
    };
    console.log(
      `paired rounds (CPU per job: worker processes + their PostgreSQL backends + PostgreSQL background + receiver):`,
    );
    for (let round = 1; round <= ROUNDS; round++) {
      for (const n of PROCESSES) {
        for (const [pi, peer] of peers.entries()) {
          const oursFirst = (round + pi) % 2 === 1;
          const runOurs = () => runOnce(m, ours, n, MESSAGES, undefined);
          const runPeer = () => runOnce(m, peer.system, n, MESSAGES, peer.layout);
          const pair = oursFirst
            ? await pairOf(runOurs, runPeer, true)
            : await pairOf(runPeer, runOurs, false);
          loads.push(pair.ours.load, pair.peer.load);
          const list = pairs.get(key(peer.system.name, n)) ?? [];
          list.push(pair);
          pairs.set(key(peer.system.name, n), list);
          console.log(
            `round ${round}, ${n} process${n > 1 ? 'es' : ''}${oursFirst ? '' : ' (peer first)'}: ${runLine(pair.ours)} vs ${runLine(pair.peer)} → ${(pair.ours.rate / pair.peer.rate).toFixed(2)}×; load ${pair.peer.load.toFixed(2)}`,
          );
        }
      }
      if (CONTENTION > 0) {
        const many = () => runOnce(m, ours, CONTENTION, MESSAGES, undefined);
        const base = () => runOnce(m, ours, CONTENTION_BASE, MESSAGES, undefined);
        const oursFirst = round % 2 === 1;
        const pair = oursFirst ? await pairOf(many, base, true) : await pairOf(base, many, false);
        contention.push(pair);
        loads.push(pair.ours.load, pair.peer.load);
        console.log(
          `round ${round}, contention: outbox ${CONTENTION} processes ${fmt(pair.ours.rate)} (${cpuLine(pair.ours)}) vs ${CONTENTION_BASE} processes ${fmt(pair.peer.rate)} (${cpuLine(pair.peer)}) → ${(pair.ours.rate / pair.peer.rate).toFixed(2)}×; load ${pair.peer.load.toFixed(2)}`,
        );
      }
    }

    // Summary.
    const medRate = (runs: Run[]) => fmt(median(runs.map((r) => r.rate)));
    console.log(
      `\nPostgreSQL summary: medians of ${ROUNDS} paired rounds, ratio range in brackets (rate: > 1× = outbox faster; CPU: < 1× = outbox cheaper)`,
    );
    for (const p of peers) console.log(`  ${p.system.name} layout (from the pilot): ${p.layoutName}`);
    for (const n of PROCESSES) {
      for (const p of peers) {
        const list = pairs.get(key(p.system.name, n)) ?? [];
        if (list.length === 0) continue;
        console.log(
          `  ${n} process${n > 1 ? 'es' : ' '} outbox ${medRate(list.map((x) => x.ours))} vs ${p.system.name} ${medRate(list.map((x) => x.peer))}: ` +
            `throughput ${spread(list.map((x) => x.ours.rate / x.peer.rate))}, ` +
            `CPU per job ${spread(list.map((x) => x.ours.cpu.total / x.peer.cpu.total))}`,
        );
      }
    }
    if (contention.length > 0) {
      console.log(
        `  contention: outbox ${CONTENTION} processes ${medRate(contention.map((x) => x.ours))} vs ${CONTENTION_BASE} processes ${medRate(contention.map((x) => x.peer))}: ` +
          `throughput ${spread(contention.map((x) => x.ours.rate / x.peer.rate))}, CPU per job ${spread(contention.map((x) => x.ours.cpu.total / x.peer.cpu.total))}`,
      );
    }
    console.log(
      '  CPU per delivered job, µs (medians): worker processes + their PostgreSQL backends + PostgreSQL background + receiver = total',
    );
    const cpuMedian = (runs: Run[]) => {
      const part = (f: (r: Run) => number) => Math.round(median(runs.map(f)));
      return `${String(part((r) => r.cpu.workers)).padStart(5)} + ${String(part((r) => r.cpu.backends)).padStart(5)} + ${String(part((r) => r.cpu.background)).padStart(4)} + ${String(part((r) => r.cpu.receiver)).padStart(4)} = ${String(part((r) => r.cpu.total)).padStart(5)}`;
    };
    for (const n of PROCESSES) {
      const oursRuns = peers.flatMap((p) => (pairs.get(key(p.system.name, n)) ?? []).map((x) => x.ours));
      if (oursRuns.length > 0)
        console.log(`    ${n} process${n > 1 ? 'es' : ' '}  ${'outbox'.padEnd(16)} ${cpuMedian(oursRuns)}`);
      for (const p of peers) {
        const list = pairs.get(key(p.system.name, n)) ?? [];
        if (list.length === 0) continue;
        console.log(
          `    ${' '.repeat(n > 1 ? 11 : 11)}${p.system.name.padEnd(16)} ${cpuMedian(list.map((x) => x.peer))}   outbox/${p.system.name} total ${spread(list.map((x) => x.ours.cpu.total / x.peer.cpu.total))}`,
        );
      }
    }
    if (contention.length > 0) {
      console.log(`    outbox at ${CONTENTION} processes    ${cpuMedian(contention.map((x) => x.ours))}`);
    }
    console.log(
      `  load average: ${loadBefore.toFixed(2)} before; during the runs median ${median(loads).toFixed(2)}, max ${Math.max(...loads).toFixed(2)} (1-minute, ${os.cpus().length} CPUs); PostgreSQL part ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
  } finally {
    for (const s of systems.reverse()) await s.close().catch((error) => console.error(error));
    await receiver.stop();
    await control.end();
  }
}
