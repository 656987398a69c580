/**
 * bench:receive, GitHub section: validated receiving of real GitHub payloads vs `@octokit/webhooks`'
 * node middleware (which verifies the signature and parses the JSON, and validates nothing).
 *
 * Five `node:http` servers in this process, the same load from a child process (autocannon, every
 * request a new `X-GitHub-Delivery`), rounds interleaved (the order reverses every round):
 *   limit    node:http handler doing only the unavoidable work: HMAC-SHA256 of the body,
 *            timingSafeEqual, JSON.parse;
 *   octokit  `createNodeMiddleware(new Webhooks({ secret }))` with a handler for the event;
 *   ours     the generated GitHub contract's receiver, zod validation on (strict), dedupe off — the
 *            target row; also with the memory dedupe store, and with validation off.
 * Each round's ratio comes from that round's pair; the bench reports the median and range of ratios,
 * in req/s and in server CPU per request. Target (#18): ours validated ≥ 0.8× octokit, both ways.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import { createNodeMiddleware, Webhooks } from '@octokit/webhooks';
import { providers } from '../../runtime/presets/index.js';
import { createReceiver } from '../../runtime/receive/receiver-web.js';
import type { Receiver } from '../../runtime/receive/types.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { type Example, example, generateGitHub } from './github-module.js';
import { type Load, listen, runLoad, type Server } from './http-load.js';
import { loadAverage, type MachineLoad, median, spread, verdict } from './load.js';

const SECRET = 'bench-github-secret';
const TARGET = 0.8;

interface Contender {
  readonly name: string;
  readonly server: Server;
  /** Requests whose handler ran (the event was verified, parsed, validated where it applies). */
  readonly handled: () => number;
  readonly stop?: () => Promise<void>;
}

function counter(): { add: () => void; get: () => number } {
  let n = 0;
  return { add: () => void n++, get: () => n };
}

async function limitServer(): Promise<Contender> {
  const count = counter();
  const server = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      const header = req.headers['x-hub-signature-256'];
      const given = typeof header === 'string' ? Buffer.from(header.slice(7), 'hex') : Buffer.alloc(0);
      const expected = createHmac('sha256', SECRET).update(body).digest();
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        res.statusCode = 401;
        res.end();
        return;
      }
      JSON.parse(body.toString('utf8'));
      count.add();
      res.end('ok');
    });
  });
  return { name: 'limit: node:http + HMAC + timingSafeEqual + JSON.parse', server, handled: count.get };
}

async function octokitServer(events: readonly string[]): Promise<Contender> {
  const count = counter();
  const webhooks = new Webhooks({ secret: SECRET });
  for (const event of events) webhooks.on(event as 'issues.opened', count.add);
  const middleware = createNodeMiddleware(webhooks, { path: '/hooks' });
  const server = await listen((req, res) => void middleware(req, res));
  return { name: '@octokit/webhooks middleware (verify only)', server, handled: count.get };
}

async function oursServer(
  name: string,
  make: (handlers: Record<string, () => void>) => Receiver<never>,
  events: readonly string[],
): Promise<Contender> {
  const count = counter();
  const receiver = make(Object.fromEntries(events.map((event) => [event, count.add])));
  const server = await listen(receiver.node() as http.RequestListener);
  return { name, server, handled: count.get, stop: () => receiver.stop() };
}

interface Row {
  readonly contender: Contender;
  readonly runs: Load[];
  unprocessed: number;
}

export async function githubBench(machine: MachineLoad): Promise<void> {
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
  const events = (process.env['BENCH_GITHUB_EVENTS'] ?? 'issues.opened,pull_request.opened,push')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  const module = await generateGitHub();
  try {
    const payloads: Example[] = events.map((event) => example(event, module.eventSchemas));
    const contract = module.contract;
    const common = { secret: SECRET };
    const contenders = [
      await limitServer(),
      await octokitServer(events),
      await oursServer(
        'ours: verify + zod (strict), dedupe off',
        (handlers) => createReceiver(contract, { ...common, dedupe: false, handlers }) as Receiver<never>,
        events,
      ),
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
    const [limit, octokit, ours] = contenders as [Contender, Contender, Contender, ...Contender[]];
    const scheme = providers.github.scheme({ secret: SECRET });
    const results: { payload: Example; ratios: { rps: number; cpu: number; limit: number }[] }[] = [];
    for (const payload of payloads) {
      const signed = await scheme.sign({ id: 'bench', timestamp: 0, body: payload.body });
      const spec = {
        kind: 'github' as const,
        event: payload.header,
        body: payload.body,
        signature: signed['X-Hub-Signature-256'] ?? '',
      };
      console.log(
        `GitHub ${payload.event}, ${(Buffer.byteLength(payload.body) / 1024).toFixed(1)} KB real payload${payload.note === undefined ? '' : ` (${payload.note})`}, ${rounds} interleaved rounds:`,
      );
      const rows: Row[] = contenders.map((contender) => ({ contender, runs: [], unprocessed: 0 }));
      const run = async (row: Row, seconds?: number): Promise<Load> => {
        const before = row.contender.handled();
        const load = await runLoad(row.contender.server, spec, seconds);
        row.unprocessed += load.served - (row.contender.handled() - before);
        return load;
      };
      // Warm-up (JIT, lazy schemas) for every server; not recorded.
      for (const row of rows) await run(row, 2);
      for (const row of rows) row.unprocessed = 0;
      // Forward in even rounds, backward in odd ones: octokit and ours always run back to back, and
      // each goes first as often as the other.
      for (let round = 0; round < rounds; round++) {
        for (const row of round % 2 === 0 ? rows : [...rows].reverse()) row.runs.push(await run(row));
        console.log(`  round ${round + 1}: ${loadAverage()}`);
      }
      for (const row of rows) {
        const runs = row.runs;
        const bad = runs.reduce((n, r) => n + r.non2xx + r.errors, 0);
        console.log(
          `  ${row.contender.name.padEnd(56)} ${median(runs.map((r) => r.rps))
            .toFixed(0)
            .padStart(6)} req/s  server CPU ${median(runs.map((r) => r.cpuUs))
            .toFixed(1)
            .padStart(
              6,
            )} µs/req  p50 ${median(runs.map((r) => r.p50))} ms  p99 ${median(runs.map((r) => r.p99))} ms  non-2xx/errors ${bad}${row.unprocessed === 0 ? '' : `  NOT handled: ${row.unprocessed}`}`,
        );
      }
      const at = (contender: Contender, round: number): Load =>
        rows.find((row) => row.contender === contender)?.runs[round] as Load;
      const ratios = Array.from({ length: rounds }, (_, round) => ({
        rps: at(ours, round).rps / at(octokit, round).rps,
        cpu: at(octokit, round).cpuUs / at(ours, round).cpuUs,
        limit: at(limit, round).cpuUs / at(ours, round).cpuUs,
      }));
      console.log(
        `  ours validated / octokit unvalidated: ${spread(ratios.map((r) => r.rps))} req/s, ${spread(ratios.map((r) => r.cpu))} by server CPU per request (octokit's ÷ ours); limit's CPU ÷ ours ${spread(ratios.map((r) => r.limit))}\n`,
      );
      results.push({ payload, ratios });
    }
    for (const { payload, ratios } of results) {
      const rps = median(ratios.map((r) => r.rps));
      const cpu = median(ratios.map((r) => r.cpu));
      console.log(
        `target ${payload.event} (ours validated ≥ ${TARGET}× octokit, req/s and CPU): ${rps.toFixed(2)}×, ${cpu.toFixed(2)}×: ${verdict(rps >= TARGET && cpu >= TARGET, machine)}`,
      );
    }
    console.log('');
    for (const c of contenders) {
      await c.server.close();
      await c.stop?.();
    }
  } finally {
    module.dispose();
  }
}
