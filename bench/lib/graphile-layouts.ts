/**
 * graphile-worker in bench:send's PostgreSQL rows: the layouts the pilot sweeps, and the runner a
 * worker process starts for one of them.
 *
 * 0.17's settings for throughput (see its docs' "Performance" page, whose own figures use
 * `concurrentJobs: 24, maxPoolSize: 25, localQueue: { size: 500 }, completeJobBatchDelay: 0,
 * failJobBatchDelay: 0`): `concurrency` (jobs in flight per process), `preset.worker.localQueue.size`
 * (the pool fetches and locks that many jobs at once and hands them to its workers; -1: each worker
 * fetches its own job), `preset.worker.completeJobBatchDelay` / `failJobBatchDelay` (completions of
 * that many ms are written in one statement; -1: one per job). The pool has `concurrency + 2`
 * connections (at least 10), as the typings recommend.
 */
import { Logger, type Runner, run, type TaskList } from 'graphile-worker';
import pg from 'pg';

export interface GraphileLayout {
  readonly concurrency: number;
  readonly localQueueSize: number;
  readonly completeJobBatchDelay: number;
  readonly failJobBatchDelay: number;
}

export const GRAPHILE_TASK = 'bench';

const plain = (concurrency: number): GraphileLayout => ({
  concurrency,
  localQueueSize: -1,
  completeJobBatchDelay: -1,
  failJobBatchDelay: -1,
});
const batched = (concurrency: number, localQueueSize: number): GraphileLayout => ({
  concurrency,
  localQueueSize,
  completeJobBatchDelay: 0,
  failJobBatchDelay: 0,
});

export const GRAPHILE_LAYOUTS: readonly GraphileLayout[] = [
  plain(8),
  plain(32),
  batched(8, 500),
  batched(32, 33),
  batched(32, 500),
];

export function graphileLayoutName(layout: GraphileLayout): string {
  const batching =
    layout.localQueueSize > 0
      ? `localQueue ${layout.localQueueSize}, completeJobBatchDelay ${layout.completeJobBatchDelay}, failJobBatchDelay ${layout.failJobBatchDelay}`
      : 'no batching';
  return `run() concurrency ${layout.concurrency}, ${batching}`;
}

/** graphile-worker's log lines go to stderr (stdout is the worker process's protocol), warnings up. */
export const quietLogger = new Logger(() => (level, message) => {
  if (String(level) === 'error' || String(level) === 'warning') {
    process.stderr.write(`graphile-worker ${String(level)}: ${message}\n`);
  }
});

/** A pool for graphile-worker with the given application_name (its backends' CPU is told apart by it). */
export function graphilePool(
  connectionString: string,
  applicationName: string,
  concurrency: number,
): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: Math.max(10, concurrency + 2),
    application_name: applicationName,
  });
  const onError = (error: Error) => process.stderr.write(`graphile-worker pool: ${String(error)}\n`);
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}

/** Starts a runner on `schema` with `layout`, running `handle` for every job. */
export function startGraphile(
  pool: pg.Pool,
  schema: string,
  layout: GraphileLayout,
  handle: (payload: unknown) => Promise<void>,
): Promise<Runner> {
  const taskList: TaskList = { [GRAPHILE_TASK]: (payload) => handle(payload) };
  return run({
    pgPool: pool,
    schema,
    concurrency: layout.concurrency,
    noHandleSignals: true,
    logger: quietLogger,
    taskList,
    crontab: '',
    preset: {
      worker: {
        localQueue: { size: layout.localQueueSize },
        completeJobBatchDelay: layout.completeJobBatchDelay,
        failJobBatchDelay: layout.failJobBatchDelay,
      },
    },
  });
}
