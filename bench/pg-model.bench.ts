/**
 * The PostgreSQL outbox past one machine, measured for a model: the outbox's worker processes
 * (bench/pg-worker-process.ts) at N = 1, 2, 8 on one database, and per job: jobs/s, CPU split into
 * the worker processes and PostgreSQL (their backends + the server's background processes),
 * statements and rows per job by what they do (claim / complete / record attempt / other, from
 * pg_stat_statements when the server loads it, else pg_stat_database and pg_stat_user_tables), claim
 * and completion sizes, WAL bytes, and waits sampled from pg_stat_activity and pg_locks, with the
 * run-queue time the kernel reports (CPU oversubscription) beside the lock waits. It then prints the
 * model: one primary of C cores tops out near C·10⁶ / D jobs/s (D: PostgreSQL CPU µs per job), and
 * the worker side, W µs per job, scales out with machines.
 *
 * Knobs (environment): BENCH_MODEL_PROCESSES=1,2,8, BENCH_MODEL_JOBS=8000 (per run),
 * BENCH_MODEL_ROUNDS=2 (order alternates; medians), BENCH_MODEL_WARMUP=3000 (jobs per process first),
 * BENCH_MODEL_SAMPLE_MS=20, BENCH_MODEL_SETTLE_MS=11000 (counters fallback only), BENCH_CONCURRENCY=32.
 * pg_stat_statements needs `shared_preload_libraries = 'pg_stat_statements'` and the extension in the
 * database; without them (or with BENCH_MODEL_SOURCE=counters) the bench says so and uses the fallback.
 */
import os from 'node:os';
import pg from 'pg';
import { contract, payload } from './lib/order-contract.js';
import { type Metrics, metricsOf } from './lib/pg-model-metrics.js';
import { printModel } from './lib/pg-model-report.js';
import { type ModelContext, measuredRun, unmeasuredRun } from './lib/pg-model-run.js';
import { statementsAvailable } from './lib/pg-model-statements.js';
import { loadAverage, median, outboxSystem, startReceiverProcess } from './pg-vs-pgboss.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PROCESSES = (process.env.BENCH_MODEL_PROCESSES ?? '1,2,8').split(',').filter(Boolean).map(Number);
const JOBS = env('BENCH_MODEL_JOBS', 8000);
const ROUNDS = env('BENCH_MODEL_ROUNDS', 2);
const WARMUP = env('BENCH_MODEL_WARMUP', 3000);
const CONCURRENCY = env('BENCH_CONCURRENCY', 32);

async function main(): Promise<void> {
  const connectionString = process.env.DATABASE_URL;
  if (!connectionString) throw new Error('pg-model: DATABASE_URL is required');
  const t0 = performance.now();
  const tag = `gwb${process.pid}`;
  const control = new pg.Pool({
    connectionString,
    max: 4,
    application_name: `${tag}-ctl`,
    // The bench's own writes (backlogs, drops) need not wait for the WAL flush; the workers' do.
    options: '-c synchronous_commit=off',
  });
  const receiver = await startReceiverProcess();
  // BENCH_MODEL_SOURCE=counters takes the fallback even where pg_stat_statements is loaded.
  const statements = process.env.BENCH_MODEL_SOURCE !== 'counters' && (await statementsAvailable(control));
  const loadBefore = loadAverage();
  console.log(
    `PostgreSQL outbox model: ${PROCESSES.join(', ')} worker processes, ${JOBS} jobs per run, ${ROUNDS} rounds, ` +
      `concurrency ${CONCURRENCY} per process, ${os.cpus().length} CPUs, node ${process.version}; load average ${loadBefore} before`,
  );
  console.log(
    statements
      ? 'statement source: pg_stat_statements'
      : 'statement source: pg_stat_database + pg_stat_user_tables (pg_stat_statements not loaded: set shared_preload_libraries and CREATE EXTENSION pg_stat_statements for per-statement figures)',
  );
  const system = await outboxSystem(
    {
      contract,
      send: (sender, i) => sender.send('order.paid', payload(i)),
      body: () => '',
      concurrency: CONCURRENCY,
      url: receiver.url,
      control,
      tag,
    },
    Math.max(...PROCESSES),
    JOBS,
  );
  const ctx: ModelContext = {
    control,
    connectionString,
    labels: new Map([
      [`${tag}-outbox`, 'outbox'],
      [`${tag}-ctl`, 'control'],
    ]),
    receiver,
    system,
    statements,
    sampleMs: env('BENCH_MODEL_SAMPLE_MS', 20),
    settleMs: env('BENCH_MODEL_SETTLE_MS', 11_000),
    timeoutMs: env('BENCH_MODEL_RUN_TIMEOUT_MS', 180_000),
  };
  try {
    const all = system.procs.length;
    for (let done = 0; done < WARMUP * all; done += JOBS) await unmeasuredRun(ctx, all, JOBS);
    if (!statements) await new Promise((r) => setTimeout(r, ctx.settleMs));
    const runs = new Map<number, Metrics[]>();
    for (let round = 1; round <= ROUNDS; round++) {
      const order = round % 2 === 1 ? PROCESSES : [...PROCESSES].reverse();
      for (const n of order) {
        const run = await measuredRun(ctx, n, JOBS);
        const m = metricsOf(run);
        runs.set(n, [...(runs.get(n) ?? []), m]);
        console.log(
          `round ${round}, ${n} process${n > 1 ? 'es' : ''}: ${Math.round(m['jobs/s'] as number)} jobs/s, ` +
            `CPU µs/job workers ${Math.round(m['cpu.workers µs/job'] as number)} + PostgreSQL ${Math.round(m['cpu.pg µs/job'] as number)}; ` +
            `Lock-wait share ${((m['share of samples with a backend in Lock wait'] as number) * 100).toFixed(1)}%; ` +
            `load ${run.load.toFixed(2)}`,
        );
      }
    }
    const medians = new Map<number, Metrics>();
    for (const [n, list] of runs) {
      const names = [...new Set(list.flatMap((m) => Object.keys(m)))];
      medians.set(n, Object.fromEntries(names.map((k) => [k, median(list.map((m) => m[k] ?? 0))])));
    }
    printModel(medians, {
      source: statements ? 'pg_stat_statements' : 'pg_stat_database + pg_stat_user_tables',
      loadBefore,
      loadAfter: loadAverage(),
      rounds: ROUNDS,
      jobs: JOBS,
      seconds: (performance.now() - t0) / 1000,
    });
  } finally {
    await system.close().catch((error) => console.error(error));
    await receiver.stop();
    await control.end();
  }
}

await main();
