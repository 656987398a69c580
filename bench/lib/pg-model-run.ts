/**
 * One measured run of bench/pg-model.bench.ts: the outbox's worker processes (bench/pg-worker-process.ts,
 * driven through bench/pg-vs-pgboss.ts's outbox system) work through a fresh backlog while the bench
 * reads, over exactly the window from `go` to drained: CPU per process from /proc (workers, their
 * PostgreSQL backends, the server's background processes, the receiver), per-statement counters
 * (pg_stat_statements, or the database's counters when it is not loaded), WAL written, and samples of
 * waits and locks every few ms.
 */
import os from 'node:os';
import type pg from 'pg';
import { drainBacklog, type Receiver, type System } from '../pg-vs-pgboss.js';
import { type Counters, type CountersDelta, countersDelta, readCounters } from './pg-model-counters.js';
import * as stmts from './pg-model-statements.js';
import { WaitSampler, type WaitSummary } from './pg-model-waits.js';
import { BACKGROUND, machineTicks, PgBackendCpu, procCpuSeconds } from './proc-cpu.js';

export interface ModelContext {
  readonly control: pg.Pool;
  readonly connectionString: string;
  readonly labels: ReadonlyMap<string, string>;
  readonly receiver: Receiver;
  readonly system: System<undefined>;
  /** pg_stat_statements loaded: per-statement figures; otherwise the counters fallback. */
  readonly statements: boolean;
  readonly sampleMs: number;
  /** How long the counters fallback waits for backends to flush their statistics. */
  readonly settleMs: number;
  readonly timeoutMs: number;
}

export interface ModelRun {
  readonly processes: number;
  readonly jobs: number;
  readonly seconds: number;
  /** CPU seconds over the window. */
  readonly cpu: { workers: number; backends: number; background: number; receiver: number };
  readonly statements?: Map<string, stmts.Statement>;
  readonly evicted: number;
  readonly counters?: CountersDelta;
  readonly walBytes: number;
  readonly waits: WaitSummary;
  readonly idleShare: number;
  /** Jobs each worker process says it handled (NaN when the worker process does not count). */
  readonly handled: readonly number[];
  readonly load: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function walLsn(db: pg.Pool): Promise<string> {
  return (await db.query('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn as string;
}

async function walSince(db: pg.Pool, lsn: string): Promise<number> {
  return Number(
    (await db.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn) AS n', [lsn])).rows[0].n,
  );
}

/** Runs without measuring (warm-up): every process of `procs` works until the backlog is drained. */
export async function unmeasuredRun(ctx: ModelContext, processes: number, jobs: number): Promise<void> {
  const backlog = await ctx.system.backlog(jobs);
  try {
    const procs = ctx.system.procs.slice(0, processes);
    await Promise.all(procs.map((p) => p.call('prep', 'prepped', backlog.prep)));
    for (const p of procs) p.go();
    await drainBacklog(backlog, 'outbox', { timeoutMs: ctx.timeoutMs });
    await Promise.all(procs.map((p) => p.call('pause', 'paused')));
  } finally {
    await backlog.drop();
  }
}

export async function measuredRun(ctx: ModelContext, processes: number, jobs: number): Promise<ModelRun> {
  const { control } = ctx;
  const backlog = await ctx.system.backlog(jobs);
  const schema = backlog.prep.schema as string;
  const sampler = new WaitSampler(ctx.connectionString, ctx.system.app, ctx.sampleMs);
  try {
    const procs = ctx.system.procs.slice(0, processes);
    await Promise.all(procs.map((p) => p.call('prep', 'prepped', backlog.prep)));
    await sampler.open();
    const evicted0 = ctx.statements ? await stmts.deallocations(control) : 0;
    const before = ctx.statements ? await stmts.snapshot(control, schema) : undefined;
    const counters0: Counters | undefined = ctx.statements ? undefined : await readCounters(control, schema);
    const lsn = await walLsn(control);
    const cpu = new PgBackendCpu(control, ctx.labels);
    await cpu.start();
    const workers0 = procs.map((p) => procCpuSeconds(p.pid));
    const receiver0 = procCpuSeconds(ctx.receiver.pid);
    const machine0 = machineTicks();
    await sampler.start(procs.map((p) => p.pid));
    const start = performance.now();
    for (const p of procs) p.go();
    let discovers = 0;
    const { polls } = await drainBacklog(backlog, 'outbox', {
      timeoutMs: ctx.timeoutMs,
      sample: async () => {
        discovers++;
        await cpu.sample();
      },
    });
    const seconds = (performance.now() - start) / 1000;
    const workers = procs.reduce((sum, p, i) => sum + procCpuSeconds(p.pid) - (workers0[i] as number), 0);
    const receiver = procCpuSeconds(ctx.receiver.pid) - receiver0;
    const machine = machineTicks();
    const pg = await cpu.stop();
    const waits = await sampler.stop();
    const walBytes = await walSince(control, lsn);
    const load = os.loadavg()[0] ?? 0;
    const replies = await Promise.all(procs.map((p) => p.call('pause', 'paused')));
    const handled = replies.map((line) => Number(line.split(' ')[2]));
    let statements: Map<string, stmts.Statement> | undefined;
    let counters: CountersDelta | undefined;
    if (before) {
      const after = await stmts.snapshot(control, schema);
      // One more poll between two snapshots shows which entries the bench's polling is.
      await backlog.open();
      const afterPoll = await stmts.snapshot(control, schema);
      statements = stmts.delta(before, after);
      stmts.withoutPolls(statements, stmts.pollKeys(after, afterPoll, schema), polls);
    } else if (counters0) {
      await sleep(ctx.settleMs);
      // Statements of the bench's own in the window: polls, its CPU sampler's lookups (start, samples,
      // stop), the wait sampler's, the WAL position.
      const own = polls + discovers + 2 + waits.samples + 1;
      counters = countersDelta(counters0, await readCounters(control, schema), own);
    }
    const evicted = ctx.statements ? (await stmts.deallocations(control)) - evicted0 : 0;
    await backlog.check(jobs);
    const ticks = machine.total - machine0.total;
    return {
      processes,
      jobs,
      seconds,
      cpu: { workers, backends: pg.get('outbox') ?? 0, background: pg.get(BACKGROUND) ?? 0, receiver },
      statements,
      evicted,
      counters,
      walBytes,
      waits,
      idleShare: ticks > 0 ? (machine.idle - machine0.idle) / ticks : Number.NaN,
      handled,
      load,
    };
  } finally {
    await sampler.close();
    await backlog.drop();
  }
}
