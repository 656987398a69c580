/**
 * Puts a peer at its best before it is measured: each of its layouts (bench/lib/receive-github-peers.ts)
 * gets a short warm-up run, then one pilot run under the same load as the measured rounds; the layout
 * with the least server CPU per request is kept, a later one only when more than 3 % cheaper (noise
 * then favours the first listed, the peer's default). Chosen by CPU per request rather than req/s:
 * the load generator shares the machine's cores, so req/s mostly measures the scheduler. A layout
 * that answers anything but 200 to a valid delivery, or skips its handler, stops the bench.
 */
import { type Load, runLoad } from './http-load.js';
import type { LoadSpec } from './load-generator.js';
import type { Contender } from './receive-github-peers.js';

const WARM_SECONDS = 1;

/** One run that must be clean: every request answered 2xx and handled. */
export async function cleanRun(contender: Contender, spec: LoadSpec, seconds?: number): Promise<Load> {
  const before = contender.handled();
  const load = await runLoad(contender.server, spec, seconds);
  const skipped = load.served - (contender.handled() - before);
  if (load.non2xx + load.errors > 0 || skipped !== 0)
    throw new Error(
      `${contender.name} [${contender.layout ?? ''}]: ${load.non2xx} non-2xx, ${load.errors} errors, ${skipped} not handled`,
    );
  return load;
}

export async function pilot(
  layouts: readonly [Contender, ...Contender[]],
  spec: LoadSpec,
  seconds: number,
): Promise<Contender> {
  for (const layout of layouts) await cleanRun(layout, spec, WARM_SECONDS);
  let chosen: { layout: Contender; cpuUs: number } | undefined;
  const lines: string[] = [];
  for (const layout of layouts) {
    const load = await cleanRun(layout, spec, seconds);
    lines.push(
      `    ${(layout.layout ?? '').padEnd(42)} ${load.rps.toFixed(0).padStart(6)} req/s  server CPU ${load.cpuUs.toFixed(1).padStart(6)} µs/req`,
    );
    if (chosen === undefined || load.cpuUs < chosen.cpuUs / 1.03) chosen = { layout, cpuUs: load.cpuUs };
  }
  const best = chosen?.layout ?? layouts[0];
  console.log(`  pilot, ${layouts[0].name} (${seconds} s per layout, after a ${WARM_SECONDS} s warm-up):`);
  for (const line of lines) console.log(line);
  console.log(`    → ${best.layout}`);
  return best;
}
