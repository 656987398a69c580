/**
 * bench:receive, GitHub section: validated receiving of real GitHub payloads vs the peers a GitHub
 * app would use instead, each at its best layout (bench/lib/receive-github-peers.ts: which layouts,
 * and why those).
 *
 * `node:http` servers in this process, the same load from a child process (autocannon, every request
 * a new `X-GitHub-Delivery`, the same connections for every server). Per event:
 *   1. pilot: each peer's layouts in short runs; the one with the least server CPU per request is
 *      kept, and printed (bench/lib/receive-github-pilot.ts);
 *   2. rounds, the order reversing every round: limit, ours with the memory store, ours with
 *      validation off, octokit middleware, ours, bare + webhooks-methods. `ours` (the generated
 *      receiver, zod validation on (strict), dedupe off: the receiver's documented configuration for
 *      this path, never tuned per run) sits between the two peers, so each pair runs back to back and
 *      each side goes first in every other round; the other rows are the references the docs cite;
 *   limit   node:http handler doing only the unavoidable work: HMAC-SHA256 of the body,
 *           timingSafeEqual, JSON.parse.
 * Then the same comparison in process (bench/lib/receive-github-process.ts), free of HTTP and of the
 * load generator's share of the cores, and the summary of every pairing (receive-github-summary.ts).
 * Targets: over HTTP ours ≥ 1.0× octokit's middleware at its best, by req/s and by server CPU per
 * request; in process ≥ 0.9× `verifyAndReceive` at its best.
 */
import os from 'node:os';
import { providers } from '../../runtime/presets/index.js';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import type { Receiver } from '../../runtime/receive/types.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { type Example, example, generateGitHub } from './github-module.js';
import { type Load, runLoad } from './http-load.js';
import { loadAverage, type MachineLoad, median, spread } from './load.js';
import {
  type Contender,
  limitServer,
  methodsLayouts,
  methodsTakesBuffer,
  octokitLayouts,
  oursServer,
  SECRET,
} from './receive-github-peers.js';
import { pilot } from './receive-github-pilot.js';
import { githubInProcess } from './receive-github-process.js';
import { type Pairing, printSummary } from './receive-github-summary.js';

const HTTP_TARGET = 1.0;

interface Row {
  readonly contender: Contender;
  readonly runs: Load[];
  unprocessed: number;
}

export async function githubBench(machine: MachineLoad): Promise<void> {
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
  const pilotSeconds = Number(process.env['BENCH_PILOT_SECONDS'] ?? 2);
  const events = (process.env['BENCH_GITHUB_EVENTS'] ?? 'issues.opened,pull_request.opened,push')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const module = await generateGitHub();
  try {
    const payloads: Example[] = events.map((event) => example(event, module.eventSchemas));
    const contract = module.contract;
    const common = { secret: SECRET };
    const ours = await oursServer(
      'ours: verify + zod (strict), dedupe off',
      (handlers) => createReceiver(contract, { ...common, dedupe: false, handlers }) as Receiver<never>,
      events,
    );
    const references = [
      await limitServer(),
      await oursServer(
        'ours: verify + zod (strict), memory dedupe',
        (handlers) =>
          createReceiver(contract, { ...common, store: memoryStore(), handlers }) as Receiver<never>,
        events,
      ),
      await oursServer(
        'ours: verify only (validation off), dedupe off',
        (handlers) =>
          createReceiver(contract, {
            ...common,
            dedupe: false,
            validation: 'off',
            handlers,
          }) as Receiver<never>,
        events,
      ),
    ];
    const limit = references[0] as Contender;
    const takesBuffer = await methodsTakesBuffer();
    const octokit = await octokitLayouts(events);
    const methods = await methodsLayouts(takesBuffer);
    if (!takesBuffer)
      console.log('(@octokit/webhooks-methods verify() rejects a Buffer payload: string layouts only)\n');
    const scheme = providers.github.scheme({ secret: SECRET });
    const pairings: Pairing[] = [];
    for (const payload of payloads) {
      const signed = await scheme.sign({ id: 'bench', timestamp: 0, body: payload.body });
      const spec = {
        kind: 'github' as const,
        event: payload.header,
        body: payload.body,
        signature: signed['X-Hub-Signature-256'] ?? '',
      };
      console.log(
        `GitHub ${payload.event}, ${(Buffer.byteLength(payload.body) / 1024).toFixed(1)} KB real payload${payload.note === undefined ? '' : ` (${payload.note})`}, ${rounds} paired rounds:`,
      );
      const bestOctokit = await pilot(octokit, spec, pilotSeconds);
      const bestMethods = await pilot(methods, spec, pilotSeconds);
      const rows: Row[] = [...references, bestOctokit, ours, bestMethods].map((contender) => ({
        contender,
        runs: [],
        unprocessed: 0,
      }));
      const run = async (row: Row, seconds?: number): Promise<Load> => {
        const before = row.contender.handled();
        const load = await runLoad(row.contender.server, spec, seconds);
        row.unprocessed += load.served - (row.contender.handled() - before);
        return load;
      };
      // Warm-up (JIT, lazy schemas) for the rows the pilot did not run; not recorded.
      for (const row of rows) if (row.contender.layout === undefined) await run(row, 2);
      for (const row of rows) row.unprocessed = 0;
      const loads: number[] = [];
      for (let round = 0; round < rounds; round++) {
        for (const row of round % 2 === 0 ? rows : [...rows].reverse()) row.runs.push(await run(row));
        loads.push(os.loadavg()[0] ?? 0);
        console.log(`  round ${round + 1}: ${loadAverage()}`);
      }
      for (const row of rows) {
        const runs = row.runs;
        const bad = runs.reduce((n, r) => n + r.non2xx + r.errors, 0);
        const of = (pick: (r: Load) => number) => median(runs.map(pick));
        console.log(
          `  ${row.contender.name.padEnd(56)} ${of((r) => r.rps)
            .toFixed(0)
            .padStart(6)} req/s  server CPU ${of((r) => r.cpuUs)
            .toFixed(1)
            .padStart(
              6,
            )} µs/req  p50 ${of((r) => r.p50)} ms  p99 ${of((r) => r.p99)} ms  non-2xx/errors ${bad}${row.unprocessed === 0 ? '' : `  NOT handled: ${row.unprocessed}`}`,
        );
      }
      const runsOf = (contender: Contender): Load[] =>
        rows.find((row) => row.contender === contender)?.runs ?? [];
      const theirs = (peer: Contender) => ({
        rps: runsOf(ours).map((r, i) => r.rps / (runsOf(peer)[i]?.rps ?? Number.NaN)),
        cpu: runsOf(ours).map((r, i) => (runsOf(peer)[i]?.cpuUs ?? Number.NaN) / r.cpuUs),
      });
      for (const [peer, target] of [
        [bestOctokit, HTTP_TARGET],
        [bestMethods, undefined],
      ] as const) {
        const { rps, cpu } = theirs(peer);
        console.log(
          `  ours ÷ ${peer.name} [${peer.layout}]: ${spread(rps)} req/s, ${spread(cpu)} by server CPU (theirs ÷ ours)`,
        );
        const where = 'HTTP';
        pairings.push({
          event: payload.event,
          where,
          peer: peer.name,
          layout: peer.layout ?? '',
          rps,
          cpu,
          loads,
          target,
        });
      }
      console.log(`  limit's server CPU ÷ ours: ${spread(theirs(limit).cpu)}\n`);
    }
    for (const c of [ours, ...references, ...octokit, ...methods]) {
      await c.server.close();
      await c.stop?.();
    }
    pairings.push(...(await githubInProcess(contract, module.eventSchemas, payloads, SECRET, takesBuffer)));
    // Grouped by event, HTTP before in process (stable sort keeps each group's order).
    printSummary(
      [...pairings].sort((a, b) => events.indexOf(a.event) - events.indexOf(b.event)),
      machine,
    );
  } finally {
    module.dispose();
  }
}
