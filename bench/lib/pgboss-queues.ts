/**
 * pg-boss in bench:send's PostgreSQL rows, shared by the bench and its worker processes: the queue
 * names and the layouts the pilot sweeps.
 *
 * Every run (warm-up, pilot layout, measured round) gets a queue of its own, deleted afterwards:
 * pg-boss keeps finished jobs in the queue's partition (and this server may run without
 * autovacuum), so each run starts on an empty partition as a first run would.
 *
 * Layouts: `fetch` is a hand-written loop (`loops` of them per process, each fetching `batch` jobs,
 * POSTing them, completing them in one call: awaited before the next fetch, or not, as pg-boss's own
 * `work()` does). `work` is pg-boss's own API: `workers` calls of `work()` per process with
 * `batchSize: batch`, polling every `pollingIntervalSeconds` (its floor is 0.5 s: a worker waits out
 * what is left of the interval after each batch, even with more jobs queued).
 */
export const pgBossQueue = (run: number): string => `bench-${run}`;

export type PgBossLayout =
  | { readonly api: 'fetch'; readonly loops: number; readonly batch: number; readonly awaitComplete: boolean }
  | {
      readonly api: 'work';
      readonly workers: number;
      readonly batch: number;
      readonly pollingIntervalSeconds: number;
    };

/** pg-boss 10's floor for `pollingIntervalSeconds` (attorney.js: MIN_POLLING_INTERVAL_MS 500). */
export const PGBOSS_MIN_POLLING_SECONDS = 0.5;

/** The layouts the pilot sweeps: 32 jobs in flight per process for the loops, as for our worker. */
export const PGBOSS_LAYOUTS: readonly PgBossLayout[] = [
  ...[
    [1, 32],
    [2, 16],
    [4, 8],
  ].flatMap(([loops, batch]) =>
    [true, false].map(
      (awaitComplete): PgBossLayout => ({
        api: 'fetch',
        loops: loops as number,
        batch: batch as number,
        awaitComplete,
      }),
    ),
  ),
  // work(): at 0.5 s per batch a worker does at most 2 × batchSize jobs/s, so besides the same 32 in
  // flight, the larger batches a user draining a backlog would set.
  ...[
    [1, 32],
    [1, 256],
    [4, 256],
    [8, 256],
  ].map(
    ([workers, batch]): PgBossLayout => ({
      api: 'work',
      workers: workers as number,
      batch: batch as number,
      pollingIntervalSeconds: PGBOSS_MIN_POLLING_SECONDS,
    }),
  ),
];

export function pgBossLayoutName(layout: PgBossLayout): string {
  return layout.api === 'fetch'
    ? `fetch ${layout.loops}×${layout.batch}, complete ${layout.awaitComplete ? 'awaited' : 'not awaited'}`
    : `work() ${layout.workers}×${layout.batch}, polling ${layout.pollingIntervalSeconds} s`;
}
