/**
 * A tiny ops/s harness for the bench scripts (no dependencies, sync and async functions).
 *
 * `measure(name, fn, { minMs })` warms `fn` up, then times batches until `minMs` has elapsed and
 * reports the median ops/s of the batches (robust against a noisy, shared machine); it prints one line
 * and returns the result. `compare(cases, options)` measures several functions with interleaved
 * batches (so drift in machine load hits all of them alike) and reports each case's median.
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

const wallMs = () => Number(process.hrtime.bigint()) / 1e6;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Batches are timed in CPU time of this process by default (`BENCH_CLOCK=wall` for wall time): on a
 * shared machine wall time also counts the moments the process was not scheduled at all. (Async work
 * on the libuv thread pool, e.g. Web Crypto, is counted too: it is CPU the operation costs.)
 */
const now = process.env.BENCH_CLOCK === 'wall' ? wallMs : cpuMs;

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

/** Grows the batch until one batch takes ≈ 20 ms, so timer resolution does not matter. */
async function calibrate(fn: Bench, warmupMs: number): Promise<number> {
  let size = 1;
  const until = wallMs() + warmupMs;
  let elapsed = await runBatch(fn, size);
  while (elapsed < 20 || wallMs() < until) {
    if (elapsed < 20) size *= 2;
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
  /** Total measuring time per case is `minMs × rounds`. Default 3. */
  readonly rounds?: number;
}

/**
 * Measures several functions with their batches interleaved (A, B, C, A, B, C, …) and reports each
 * case's median batch rate: a change in machine load hits every case alike, so ratios stay meaningful
 * on a busy machine.
 */
export async function compare(
  cases: Readonly<Record<string, Bench>>,
  options: CompareOptions = {},
): Promise<Record<string, MeasureResult>> {
  const minMs = options.minMs ?? 1000;
  const budget = minMs * (options.rounds ?? 3);
  const entries = Object.entries(cases);
  const sizes: number[] = [];
  for (const [, fn] of entries) sizes.push(await calibrate(fn, options.warmupMs ?? minMs / 4));
  const rates: number[][] = entries.map(() => []);
  const spent: number[] = entries.map(() => 0);
  const operations: number[] = entries.map(() => 0);
  while (spent.some((ms) => ms < budget) || rates.some((list) => list.length < 5)) {
    for (let i = 0; i < entries.length; i++) {
      const fn = entries[i]?.[1];
      const size = sizes[i] ?? 1;
      if (fn === undefined) continue;
      const elapsed = await runBatch(fn, size);
      spent[i] = (spent[i] ?? 0) + elapsed;
      operations[i] = (operations[i] ?? 0) + size;
      rates[i]?.push((size * 1000) / Math.max(elapsed, 1e-6));
    }
  }
  const results: Record<string, MeasureResult> = {};
  entries.forEach(([name], i) => {
    const samples = rates[i] ?? [];
    const hz = median(samples);
    results[name] = { name, hz, nsPerOp: 1e9 / hz, samples: samples.length, operations: operations[i] ?? 0 };
  });
  if (options.print !== false) {
    for (const result of Object.values(results)) {
      console.log(
        `${result.name.padEnd(48)} ${formatHz(result.hz).padStart(14)} ops/s  ${result.nsPerOp.toFixed(0).padStart(8)} ns/op`,
      );
    }
  }
  return results;
}

export function ratio(label: string, a: MeasureResult, b: MeasureResult): number {
  const value = a.hz / b.hz;
  console.log(`${label.padEnd(48)} ${value.toFixed(2).padStart(14)}×`);
  return value;
}
