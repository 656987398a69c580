/**
 * The PostgreSQL rows of bench:send: the outbox against pg-boss on the same database and the same
 * local receiver, 1 and 4 worker processes each, in pairs run back to back so each round's ratio
 * compares like with like on a shared machine (the medians of those ratios are reported), with the
 * PostgreSQL server's CPU (every `postgres` process on this host, from /proc), the CPU of the bench
 * process's other threads (the local receiver, which answers both) and the load average.
 * With `warmup` > 0 every worker process, ours and pg-boss's alike, first works through that many
 * jobs and pauses, and the measured jobs are enqueued then: the run measures processes in their
 * steady state, as a deployment's long-running workers are, not each fresh process's JIT warm-up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { Contract, EventMapBase } from '../runtime/contract.js';
import { postgresOutbox } from '../runtime/deliver/postgres-outbox.js';
import { createSender } from '../runtime/deliver/sender.js';
import { createEndpointManager } from '../runtime/manage/endpoints.js';
import { PGBOSS_QUEUE as QUEUE, PGBOSS_WARMUP_QUEUE as WARMUP_QUEUE } from './lib/pgboss-queues.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const script = path.join(here, 'pg-worker-process.ts');
const LOCAL = { allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] };

/** CPU seconds of every PostgreSQL server process on this host (0 when /proc shows none). */
function postgresCpu(): number {
  let ticks = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      if (!stat.slice(stat.indexOf('(') + 1, close).startsWith('postgres')) continue;
      const fields = stat.slice(close + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100;
}

/**
 * CPU seconds of this process's threads other than the main one: the receiver's worker thread (and
 * V8's helpers), so the receiver's share of the machine is reported apart from the bench's polling.
 */
function receiverCpu(): number {
  let ticks = 0;
  for (const tid of fs.readdirSync('/proc/self/task')) {
    if (tid === String(process.pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100;
}

/** Idle, stolen and total CPU ticks of the whole machine, all cores (/proc/stat; zeros where there is none). */
function machineTicks(): { idle: number; steal: number; total: number } {
  try {
    const fields = (fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] as string)
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already in user)
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    return { idle: (fields[3] ?? 0) + (fields[4] ?? 0), steal: fields[7] ?? 0, total };
  } catch {
    return { idle: 0, steal: 0, total: 0 };
  }
}

interface Proc {
  readonly child: ChildProcess;
  send(line: string): void;
  wait(line: string): Promise<void>;
  /** The CPU (µs) the process reported for its run, once it has. */
  cpu(): number;
}

function spawnProc(mode: string, schema: string, url: string, concurrency: number): Promise<Proc> {
  // BENCH_WORKER_NODE_ARGS: extra node flags for the worker processes (e.g. `--cpu-prof`).
  const extra = process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const args = [...extra, '--import', 'tsx', script, mode, schema, url, String(concurrency)];
  const child = spawn(process.execPath, args, {
    env: process.env,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  const waiters: Array<{ line: string; resolve: () => void }> = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of [...waiters]) {
      if (out.includes(`${w.line}\n`)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  const proc: Proc = {
    child,
    send: (line) => child.stdin?.write(`${line}\n`),
    wait: (line) =>
      out.includes(`${line}\n`)
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ line, resolve })),
    cpu: () => Number(/^cpu (\d+)$/m.exec(out)?.[1] ?? Number.NaN),
  };
  return proc.wait('ready').then(() => proc);
}

export interface PairRun {
  readonly rate: number;
  /** PostgreSQL server CPU per job, µs. */
  readonly pgCpuPerJob: number;
  /** CPU of the worker processes (all of them) per job, µs. */
  readonly workerCpuPerJob: number;
  /** CPU of the receiver (the bench process's other threads) per job, µs. */
  readonly receiverCpuPerJob: number;
  /** Share of the machine's CPU (all cores) left idle during the run: none left, no growth possible. */
  readonly idleShare: number;
  /** Share taken by the host for other guests (steal): CPU this run wanted and did not get. */
  readonly stealShare: number;
}

/** The warm-up: every process works until `done()`, then pauses (the measured run starts later). */
async function warmUp(procs: Proc[], done: () => Promise<boolean>): Promise<void> {
  for (const p of procs) p.send('warm');
  while (!(await done())) await new Promise((r) => setTimeout(r, 5));
  for (const p of procs) p.send('pause');
  await Promise.all(procs.map((p) => p.wait('paused')));
}

/** Starts the processes, then times from `go` until `done()` says every job is finished. */
async function timed(procs: Proc[], jobs: number, done: () => Promise<boolean>): Promise<PairRun> {
  const cpu0 = postgresCpu();
  const receiver0 = receiverCpu();
  const machine0 = machineTicks();
  const start = performance.now();
  for (const p of procs) p.send('go');
  while (!(await done())) await new Promise((r) => setTimeout(r, 5));
  const elapsed = (performance.now() - start) / 1000;
  const cpu = postgresCpu() - cpu0;
  const receiver = receiverCpu() - receiver0;
  const machine = machineTicks();
  const ticks = machine.total - machine0.total;
  for (const p of procs) p.send('stop');
  await Promise.all(procs.map((p) => p.wait('stopped')));
  const workerCpu = procs.reduce((sum, p) => sum + p.cpu(), 0);
  return {
    rate: jobs / elapsed,
    pgCpuPerJob: (cpu * 1e6) / jobs,
    workerCpuPerJob: workerCpu / jobs,
    receiverCpuPerJob: (receiver * 1e6) / jobs,
    idleShare: ticks > 0 ? (machine.idle - machine0.idle) / ticks : Number.NaN,
    stealShare: ticks > 0 ? (machine.steal - machine0.steal) / ticks : Number.NaN,
  };
}

/** Enqueues `count` messages, 64 at a time (their order does not matter here). */
async function sendAll(count: number, send: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < count; i += 64) {
    await Promise.all(Array.from({ length: Math.min(64, count - i) }, (_, j) => send(i + j)));
  }
}

export async function outboxRun<M extends EventMapBase>(
  contract: Contract<M>,
  send: (sender: ReturnType<typeof createSender<M>>, i: number) => Promise<unknown>,
  url: string,
  workers: number,
  jobs: number,
  concurrency: number,
  warmup: number,
): Promise<PairRun> {
  const schema = `gw_bench_outbox_${process.pid}`;
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
  try {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    const outbox = postgresOutbox(pool, { schema });
    const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
    await manager.register({ url: `${url}/hook`, events: ['*'] });
    const sender = createSender(contract, { outbox });
    const warm = warmup * workers;
    await sendAll(warm, (i) => send(sender, jobs + i));
    const procs = await Promise.all(
      Array.from({ length: workers }, () => spawnProc('outbox', schema, url, concurrency)),
    );
    const drained = async () => (await outbox.nextDueAt()) === undefined;
    if (warm > 0) await warmUp(procs, drained);
    await sendAll(jobs, (i) => send(sender, i));
    const run = await timed(procs, jobs, drained);
    const total = warm + jobs;
    const succeeded = await outbox.listDeliveries({ status: 'succeeded', limit: total + 1 });
    if (succeeded.length !== total) throw new Error(`outbox: ${succeeded.length}/${total} delivered`);
    return run;
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
}

export async function pgBossRun(
  body: (i: number) => string,
  url: string,
  workers: number,
  jobs: number,
  concurrency: number,
  warmup: number,
): Promise<PairRun> {
  const schema = `gw_bench_pgboss_${process.pid}`;
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  const boss = new PgBoss({
    connectionString: process.env.DATABASE_URL,
    schema,
    max: 4,
    supervise: false,
    schedule: false,
  });
  boss.on('error', (error) => console.error('pg-boss:', error));
  try {
    await boss.start();
    await boss.createQueue(QUEUE);
    await boss.createQueue(WARMUP_QUEUE);
    const insert = async (name: string, from: number, count: number) => {
      for (let i = 0; i < count; i += 1000) {
        await boss.insert(
          Array.from({ length: Math.min(1000, count - i) }, (_, j) => ({
            name,
            data: { body: body(from + i + j) },
          })),
        );
      }
    };
    const warm = warmup * workers;
    await insert(WARMUP_QUEUE, jobs, warm);
    const procs = await Promise.all(
      Array.from({ length: workers }, () => spawnProc('pgboss', schema, url, concurrency)),
    );
    // Whether any job is open: one row found is enough (a count read every open job on each poll).
    const open = async (name: string) =>
      (
        await pool.query(
          `SELECT 1 FROM "${schema}".job WHERE name = $1 AND state IN ('created', 'retry', 'active') LIMIT 1`,
          [name],
        )
      ).rows.length > 0;
    if (warm > 0) await warmUp(procs, async () => !(await open(WARMUP_QUEUE)));
    await insert(QUEUE, 0, jobs);
    const run = await timed(procs, jobs, async () => !(await open(QUEUE)));
    const completed = Number(
      (await pool.query(`SELECT count(*) AS n FROM "${schema}".job WHERE state = 'completed'`)).rows[0].n,
    );
    if (completed !== warm + jobs) throw new Error(`pg-boss: ${completed}/${warm + jobs} completed`);
    return run;
  } finally {
    await boss.stop({ graceful: false, wait: true }).catch(() => undefined);
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
}

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
