/**
 * The end of bench:receive's GitHub section: for every event, each peer at the layout its pilot chose
 * and our receiver's ratio to it, from paired rounds (ours and the peer back to back, the order
 * alternating): the median of the per-pair ratios and their range, in req/s (ours ÷ peer) and in
 * server CPU per request (peer ÷ ours; in process, CPU per operation), beside the 1-minute load
 * average before the run and at the end of each round. A target counts only when the medians clear
 * it (a best round alone never does) on a machine that was quiet before the run (`verdict`).
 */
import { type MachineLoad, median, spread, verdict } from './load.js';

export interface Pairing {
  readonly event: string;
  /** `HTTP` or `in process`. */
  readonly where: string;
  readonly peer: string;
  readonly layout: string;
  /** Ours ÷ peer req/s, one per pair (HTTP only). */
  readonly rps?: readonly number[];
  /** Peer ÷ ours CPU per request, one per pair. */
  readonly cpu: readonly number[];
  /** 1-minute load average at the end of each round. */
  readonly loads: readonly number[];
  /** Both medians must reach it; none for a peer shown for reference. */
  readonly target?: number;
}

function range(values: readonly number[]): string {
  if (values.length === 0) return 'n/a';
  return `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
}

export function printSummary(pairings: readonly Pairing[], machine: MachineLoad): void {
  console.log(
    `GitHub summary: ours = the generated receiver, zod validation on (strict), dedupe off; ratios are medians of per-pair ratios (range); load average ${machine.before.toFixed(2)} before the run`,
  );
  let event: string | undefined;
  for (const p of pairings) {
    if (p.event !== event) {
      event = p.event;
      console.log(`  ${event}`);
    }
    const met =
      p.target !== undefined &&
      median(p.cpu) >= p.target &&
      (p.rps === undefined || median(p.rps) >= p.target);
    const goal =
      p.target === undefined
        ? 'no target (reference)'
        : `target ≥ ${p.target.toFixed(1)}×: ${verdict(met, machine)}`;
    const rps = p.rps === undefined ? '' : `req/s ${spread(p.rps)}, `;
    console.log(`    ${p.where}, ${p.peer} [${p.layout}]`);
    console.log(`      ${rps}CPU ${spread(p.cpu)}; load during ${range(p.loads)}; ${goal}`);
  }
  console.log('');
}
