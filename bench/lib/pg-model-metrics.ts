/**
 * The figures of one run of bench/pg-model.bench.ts as a flat record of named numbers (per job, per
 * call, shares), so rounds can be reduced to medians name by name and every figure the report and
 * the model use is printed under the name it is computed from.
 */
import type { ModelRun } from './pg-model-run.js';
import { byGroup, GROUPS } from './pg-model-statements.js';

export type Metrics = Record<string, number>;

export function metricsOf(run: ModelRun): Metrics {
  const m: Metrics = {};
  const per = (x: number) => x / run.jobs;
  const us = (seconds: number) => (seconds * 1e6) / run.jobs;
  m['jobs/s'] = run.jobs / run.seconds;
  m['cpu.workers µs/job'] = us(run.cpu.workers);
  m['cpu.pg backends µs/job'] = us(run.cpu.backends);
  m['cpu.pg background µs/job'] = us(run.cpu.background);
  m['cpu.pg µs/job'] = us(run.cpu.backends + run.cpu.background);
  m['cpu.receiver µs/job'] = us(run.cpu.receiver);
  m['machine idle share'] = run.idleShare;
  m['wal bytes/job'] = per(run.walBytes);
  if (run.statements) {
    const groups = byGroup(run.statements);
    let calls = 0;
    for (const g of GROUPS) {
      const s = groups.get(g);
      if (!s) continue;
      calls += s.calls;
      m[`stmt.${g} calls/job`] = per(s.calls);
      m[`stmt.${g} rows/job`] = per(s.rows);
      m[`stmt.${g} exec µs/job`] = (s.ms * 1000) / run.jobs;
      m[`stmt.${g} blks dirtied/job`] = per(s.dirtied);
      m[`stmt.${g} wal records/job`] = per(s.walRecords);
      m[`stmt.${g} rows/call`] = s.rows / s.calls;
    }
    m['stmt.all calls/job'] = per(calls);
    const claim = groups.get('claim');
    if (claim) {
      m['claim jobs/call'] = run.jobs / claim.calls;
      m['claim rows − jobs (flag rows of empty claims)'] = claim.rows - run.jobs;
    }
    const complete = groups.get('complete');
    m['rows locked/job (claim rows + complete rows)'] = per((claim?.rows ?? 0) + (complete?.rows ?? 0));
    m['pg_stat_statements evictions'] = run.evicted;
  }
  if (run.counters) {
    const d = run.counters.database;
    m['db.xact_commit/job (bench own removed)'] = per(d.xactCommit);
    m['db.xact_rollback/job'] = per(d.xactRollback);
    m['db.tup_updated/job'] = per(d.tupUpdated);
    m['db.tup_inserted/job'] = per(d.tupInserted);
    m['db.tup_deleted/job'] = per(d.tupDeleted);
    m['db.tup_fetched/job'] = per(d.tupFetched);
    for (const [name, t] of run.counters.tables) {
      if (t.upd) m[`table.${name} upd/job`] = per(t.upd);
      if (t.hotUpd) m[`table.${name} hot upd/job`] = per(t.hotUpd);
      if (t.ins) m[`table.${name} ins/job`] = per(t.ins);
    }
  }
  const w = run.waits;
  m['wait samples'] = w.samples;
  m['wait sample interval ms (actual)'] = (run.seconds * 1000) / w.samples;
  m['share of samples with a backend in Lock wait'] = w.lockShare;
  m['share of samples with a backend in LWLock wait'] = w.lwlockShare;
  m['mean backends'] = w.meanBackends;
  m['mean runnable tasks (machine)'] = w.meanRunnable;
  const backendSamples = [...w.events.values()].reduce((a, b) => a + b, 0);
  for (const [event, n] of w.events) m[`backend state share: ${event}`] = n / backendSamples;
  m['not granted locks per sample (all types)'] =
    [...w.notGranted.values()].reduce((x, y) => x + y, 0) / w.samples;
  for (const [type, n] of w.notGranted) m[`not granted locks per sample: ${type}`] = n / w.samples;
  // Backend-time in each state per job: samples × the actual sample spacing.
  const spacingUs = (run.seconds * 1e6) / w.samples;
  for (const [event, n] of w.events)
    if (event !== 'idle') m[`backend µs/job in ${event}`] = (n * spacingUs) / run.jobs;
  m['run-queue wait µs/job, workers'] = us(w.sched.workersWait);
  m['run-queue wait µs/job, backends'] = us(w.sched.backendsWait);
  m['on-CPU µs/job, backends (schedstat)'] = us(w.sched.backendsCpu);
  const handled = run.handled.filter(Number.isFinite);
  if (handled.length === run.handled.length && handled.length > 0) {
    m['worker jobs handled, min share'] = Math.min(...handled) / run.jobs;
    m['worker jobs handled, max share'] = Math.max(...handled) / run.jobs;
  }
  return m;
}
