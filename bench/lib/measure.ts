/**
 * A tiny ops/s harness for the bench scripts (no dependencies, sync and async functions).
 *
 * `measure(name, fn, { minMs })` warms `fn` up, then times batches until `minMs` has elapsed and
 * reports the median ops/s of the batches (robust against a noisy, shared machine); it prints one line
 * and returns the result. `compare(cases, options)` measures several functions in interleaved rounds
 * (so drift in machine load hits all of them alike) and keeps each case's best round.
 * `ratio(label, a, b)` prints and returns a.hz / b.hz.
 */

export interface MeasureOptions {
  /** Measuring time per case (per round in `compare`), ms. Default 1000. */
  readonly minMs?: number;
  /** Warm-up time, ms. Default minMs / 4. */
  readonly warmupMs?: number;
  /** Print the result line. Default true. */
  readonly print?: boolean;
}

export interface MeasureResult {
  readonly name: string;
  /** Operations per second (median of batches). */
  readonly hz: number;
  /** Mean time per operation, ns. */
  readonly nsPerOp: number;
  readonly samples: number;
  readonly operations: number;
}

type Bench = () => unknown;

const now = () => Number(process.hrtime.bigint()) / 1e6;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

async function runBatch(fn: Bench, size: number): Promise<number> {
  const start = now();
  for (let i = 0; i < size; i++) {
    const out = fn();
    if (out instanceof Promise) await out;
  }
  return now() - start;
}

/** Grows the batch until one batch takes ≈ 10 ms, so timer resolution does not matter. */
async function calibrate(fn: Bench, warmupMs: number): Promise<number> {
  let size = 1;
  const until = now() + warmupMs;
  let elapsed = await runBatch(fn, size);
  while (elapsed < 10 || now() < until) {
    if (elapsed < 10) size *= 2;
    elapsed = await runBatch(fn, size);
  }
  return size;
}

export function formatHz(hz: number): string {
  return Math.round(hz).toLocaleString('en-US');
}

export async function measure(name: string, fn: Bench, options: MeasureOptions = {}): Promise<MeasureResult> {
  const minMs = options.minMs ?? 1000;
  const size = await calibrate(fn, options.warmupMs ?? minMs / 4);
  const rates: number[] = [];
  let operations = 0;
  let total = 0;
  while (total < minMs || rates.length < 5) {
    const elapsed = await runBatch(fn, size);
    total += elapsed;
    operations += size;
    rates.push((size * 1000) / Math.max(elapsed, 1e-6));
  }
  const hz = median(rates);
  const result = { name, hz, nsPerOp: 1e9 / hz, samples: rates.length, operations };
  if (options.print !== false) {
    console.log(
      `${name.padEnd(48)} ${formatHz(hz).padStart(14)} ops/s  ${result.nsPerOp.toFixed(0).padStart(8)} ns/op`,
    );
  }
  return result;
}

export interface CompareOptions extends MeasureOptions {
  /** Interleaved rounds; each case keeps its best. Default 3. */
  readonly rounds?: number;
}

export async function compare(
  cases: Readonly<Record<string, Bench>>,
  options: CompareOptions = {},
): Promise<Record<string, MeasureResult>> {
  const rounds = options.rounds ?? 3;
  const best: Record<string, MeasureResult> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [name, fn] of Object.entries(cases)) {
      const result = await measure(name, fn, { ...options, print: false });
      const previous = best[name];
      if (previous === undefined || result.hz > previous.hz) best[name] = result;
    }
  }
  if (options.print !== false) {
    for (const result of Object.values(best)) {
      console.log(
        `${result.name.padEnd(48)} ${formatHz(result.hz).padStart(14)} ops/s  ${result.nsPerOp.toFixed(0).padStart(8)} ns/op`,
      );
    }
  }
  return best;
}

export function ratio(label: string, a: MeasureResult, b: MeasureResult): number {
  const value = a.hz / b.hz;
  console.log(`${label.padEnd(48)} ${value.toFixed(2).padStart(14)}×`);
  return value;
}
