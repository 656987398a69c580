/**
 * The printed part of bench/pg-model.bench.ts: every figure per process count (medians of the rounds)
 * in one labelled block, then the model built from them.
 *
 * The model's assumption, printed with it: one PostgreSQL primary of C cores spends D CPU µs per job
 * (its backends plus its background processes, as measured), its cores do nothing else, and D stays
 * at the measured value as claimers are added (no new lock or WAL serialisation): the ceiling is
 * C·10⁶ / D jobs/s. The worker side's W µs per job runs on other machines and scales out with them.
 */
import type { Metrics } from './pg-model-metrics.js';

export interface ReportInfo {
  readonly source: string;
  readonly loadBefore: string;
  readonly loadAfter: string;
  readonly rounds: number;
  readonly jobs: number;
  readonly seconds: number;
}

const CORES = [8, 16, 32];
const WORKER_MACHINE_CORES = 8;

const num = (x: number | undefined): string => {
  if (x === undefined || !Number.isFinite(x)) return '-';
  const a = Math.abs(x);
  return a >= 100 ? Math.round(x).toLocaleString('en-US') : a >= 1 ? x.toFixed(2) : x.toFixed(3);
};

export function printModel(medians: ReadonlyMap<number, Metrics>, info: ReportInfo): void {
  const ns = [...medians.keys()].sort((a, b) => a - b);
  const names = [...new Set(ns.flatMap((n) => Object.keys(medians.get(n) as Metrics)))];
  console.log(
    `\n=== pg-model figures: medians of ${info.rounds} rounds, ${info.jobs} jobs per run, source ${info.source}; ` +
      `${new Date().toISOString().slice(0, 10)}, load average ${info.loadBefore} before, ${info.loadAfter} after (${info.seconds.toFixed(0)} s) ===`,
  );
  console.log(`${'figure'.padEnd(62)}${ns.map((n) => `${n} proc`.padStart(12)).join('')}`);
  for (const name of names) {
    console.log(`${name.padEnd(62)}${ns.map((n) => num(medians.get(n)?.[name]).padStart(12)).join('')}`);
  }

  console.log(
    '\n=== pg-model: one PostgreSQL primary ===\n' +
      'assumption: the primary spends D = PostgreSQL CPU µs/job (backends + background) as measured, its C cores\n' +
      'do nothing else, and D does not grow with more claimers; ceiling ≈ C·10⁶ / D jobs/s. Worker side W µs/job\n' +
      `runs on other machines; worker cores to feed the ceiling = ceiling · W / 10⁶ (machines of ${WORKER_MACHINE_CORES} cores).`,
  );
  for (const n of ns) {
    const m = medians.get(n) as Metrics;
    const d = m['cpu.pg µs/job'] as number;
    const w = m['cpu.workers µs/job'] as number;
    const parts = CORES.map((c) => {
      const ceiling = (c * 1e6) / d;
      const workerCores = (ceiling * w) / 1e6;
      return `${c} cores ${num(ceiling)} jobs/s (${num(workerCores)} worker cores, ${Math.ceil(workerCores / WORKER_MACHINE_CORES)} machines)`;
    });
    console.log(
      `D, W from ${n} process${n > 1 ? 'es' : ''}: D ${num(d)}, W ${num(w)} µs/job → ${parts.join('; ')}`,
    );
  }

  const a = medians.get(2);
  const b = medians.get(8);
  if (!a || !b) return;
  console.log('\n=== pg-model: 2 → 8 processes ===');
  const rows = [
    'jobs/s',
    'cpu.workers µs/job',
    'cpu.pg µs/job',
    'claim jobs/call',
    'stmt.claim rows/call',
    'stmt.complete rows/call',
    'stmt.all calls/job',
    'stmt.claim exec µs/job',
    'stmt.complete exec µs/job',
    'share of samples with a backend in Lock wait',
    'share of samples with a backend in LWLock wait',
    'mean runnable tasks (machine)',
    'run-queue wait µs/job, workers',
    'run-queue wait µs/job, backends',
    'backend µs/job in CPU',
  ];
  for (const name of rows) {
    const x = a[name];
    const y = b[name];
    if (x === undefined && y === undefined) continue;
    const ratio = x !== undefined && y !== undefined && x !== 0 ? `${(y / x).toFixed(2)}×` : '-';
    console.log(`${name.padEnd(62)}${num(x).padStart(12)}${num(y).padStart(12)}${ratio.padStart(10)}`);
  }
  const waits = Object.keys(b).filter((k) => k.startsWith('backend µs/job in ') && !k.endsWith(' CPU'));
  for (const name of waits) {
    console.log(`${name.padEnd(62)}${num(a[name] ?? 0).padStart(12)}${num(b[name]).padStart(12)}`);
  }
}
