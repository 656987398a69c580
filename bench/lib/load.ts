/**
 * Machine load for the bench scripts: every bench prints the load average (before the run, per round,
 * after), and a target counts as met only when the machine was not loaded by other work.
 *
 * Why: on a shared machine both sides of a ratio wait for the CPU, so ratios drift towards 1× and a
 * target can look met for the wrong reason. "Loaded" is judged on the 1-minute load average read
 * before the bench starts its own load: above `BENCH_MAX_LOAD` (default: a quarter of the CPUs) the
 * verdict says NOT met even when the numbers clear the bar.
 */
import os from 'node:os';
import { machineTicks } from './proc-cpu.js';

const cpus = os.availableParallelism?.() ?? os.cpus().length;
const maxLoad = Number(process.env['BENCH_MAX_LOAD'] ?? cpus / 4);

/** `load average 1.23 0.98 0.77 (2 CPUs), steal 0.4 %` (steal: see `stealShare`). */
export function loadAverage(): string {
  const [one = 0, five = 0, fifteen = 0] = os.loadavg();
  return `load average ${one.toFixed(2)} ${five.toFixed(2)} ${fifteen.toFixed(2)} (${cpus} CPUs)${steal()}`;
}

let lastTicks = machineTicks();

/**
 * The share of CPU time the hypervisor gave to other guests (steal) since the previous reading (or
 * the bench's start): on a shared virtual machine it shows when a round ran on a busy host, which
 * the load average does not.
 */
function stealShare(): number | undefined {
  const now = machineTicks();
  const before = lastTicks;
  lastTicks = now;
  if (now.total <= before.total) return undefined;
  return (now.steal - before.steal) / (now.total - before.total);
}

function steal(): string {
  const share = stealShare();
  return share === undefined ? '' : `, steal ${(100 * share).toFixed(1)} %`;
}

export interface MachineLoad {
  /** 1-minute load average when the bench started. */
  readonly before: number;
  readonly loaded: boolean;
  readonly limit: number;
}

/** Reads and prints the load before the bench adds its own. */
export function startLoad(): MachineLoad {
  const before = os.loadavg()[0] ?? 0;
  console.log(`${loadAverage()} before the run (loaded above ${maxLoad.toFixed(2)}: BENCH_MAX_LOAD)`);
  return { before, loaded: before > maxLoad, limit: maxLoad };
}

/**
 * `TARGET MET`, `BELOW TARGET`, or `NOT MET (… loaded machine …)` when the numbers clear the bar but
 * the machine was busy with other work: such a result does not count.
 */
export function verdict(met: boolean, machine: MachineLoad): string {
  if (!met) return 'BELOW TARGET';
  if (!machine.loaded) return 'TARGET MET';
  return `NOT MET: cleared only on a loaded machine (load average ${machine.before.toFixed(2)} > ${machine.limit.toFixed(2)} before the run)`;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return 0;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** `0.81× (0.74–0.86)`: the median and range of per-round ratios. */
export function spread(values: readonly number[], digits = 2): string {
  if (values.length === 0) return 'n/a';
  const low = Math.min(...values).toFixed(digits);
  const high = Math.max(...values).toFixed(digits);
  return `${median(values).toFixed(digits)}× (${low}–${high})`;
}

/**
 * A side of a ratio at its best: one discarded warm-up run (so the first setting tried does not pay
 * for the JIT), then one pilot run per setting; the fastest is kept, a later one only when it is
 * more than 3 % faster (noise favours no setting). Prints `label  a: rate, b: rate → chosen`.
 */
export async function pickBest<T extends number | string>(
  label: string,
  settings: readonly [T, ...T[]],
  run: (setting: T, tag: string) => Promise<number>,
): Promise<T> {
  await run(settings[Math.min(1, settings.length - 1)] as T, 'warm');
  let chosen: { setting: T; rate: number } | undefined;
  const seen: string[] = [];
  for (const setting of settings) {
    const rate = await run(setting, `pilot${setting}`);
    seen.push(`${setting}: ${rate.toFixed(0)}`);
    if (chosen === undefined || rate > chosen.rate * 1.03) chosen = { setting, rate };
  }
  const setting = chosen?.setting ?? settings[0];
  console.log(`  pilot ${label}  ${seen.join(', ')} msgs/s → ${setting}`);
  return setting;
}
