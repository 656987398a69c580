/**
 * The peers of bench:receive's in-process GitHub rows, in each layout their users would reasonably
 * pick, and the CPU-timed pilot that keeps the cheapest:
 *   octokit  `await webhooks.verifyAndReceive(event)` (what its middleware calls), or
 *            `await webhooks.verify(payload, signature)` then `webhooks.receive({ …, payload:
 *            JSON.parse(payload) })` × handlers by `webhooks.on(event)` or `onAny`;
 *   methods  `@octokit/webhooks-methods` `verify(secret, payload, signature)` + JSON.parse, with a
 *            string payload, and a Buffer one when `verify` accepts it.
 * Every layout is run once first and must reach its handler. Every call starts, as every delivery
 * does, from the request's bytes: a string payload is decoded from them per call (what the peer's
 * own middleware, or the user's framework, does). Parsing the one string object again and again
 * measured 15–20 % faster than parsing a freshly decoded copy (that memory stays in the CPU cache),
 * which no real delivery gets.
 */
import { Webhooks } from '@octokit/webhooks';
import { verify } from '@octokit/webhooks-methods';
import type { Example } from './github-module.js';
import { compare } from './measure.js';

export interface InProcessLayout {
  readonly layout: string;
  readonly run: () => Promise<unknown>;
}

type Layouts = [InProcessLayout, ...InProcessLayout[]];

async function checked(layouts: Layouts, handled: () => number): Promise<Layouts> {
  for (const { layout, run } of layouts) {
    const before = handled();
    await run();
    if (handled() !== before + 1) throw new Error(`${layout}: the handler did not run once`);
  }
  return layouts;
}

export async function octokitInProcess(
  secret: string,
  events: readonly string[],
  payload: Example,
  signature: string,
): Promise<Layouts> {
  let handled = 0;
  const count = () => void handled++;
  const byEvent = new Webhooks({ secret });
  for (const event of events) byEvent.on(event as 'issues.opened', count);
  const any = new Webhooks({ secret });
  any.onAny(count);
  let n = 0;
  const name = payload.header as 'issues';
  const bytes = Buffer.from(payload.body);
  const layouts: Layouts = [
    { webhooks: byEvent, handlers: 'on(event)' },
    { webhooks: any, handlers: 'onAny' },
  ].flatMap(({ webhooks, handlers }) => [
    {
      layout: `verifyAndReceive, ${handlers}`,
      run: () =>
        webhooks.verifyAndReceive({ id: `d-${++n}`, name, signature, payload: bytes.toString('utf8') }),
    },
    {
      layout: `verify + receive, ${handlers}`,
      run: async () => {
        const text = bytes.toString('utf8');
        if (!(await webhooks.verify(text, signature))) throw new Error('bad signature');
        const event = { id: `d-${++n}`, name, payload: JSON.parse(text) };
        await webhooks.receive(event as Parameters<typeof webhooks.receive>[0]);
      },
    },
  ]) as Layouts;
  return checked(layouts, () => handled);
}

export async function methodsInProcess(
  secret: string,
  payload: Example,
  signature: string,
  takesBuffer: boolean,
): Promise<Layouts> {
  let handled = 0;
  const bytes = Buffer.from(payload.body);
  const layouts: Layouts = [
    {
      layout: 'string payload',
      run: async () => {
        const text = bytes.toString('utf8');
        if (!(await verify(secret, text, signature))) throw new Error('bad signature');
        JSON.parse(text);
        handled++;
      },
    },
  ];
  if (takesBuffer)
    layouts.push({
      layout: 'Buffer payload',
      run: async () => {
        if (!(await verify(secret, bytes as unknown as string, signature))) throw new Error('bad signature');
        JSON.parse(bytes.toString('utf8'));
        handled++;
      },
    });
  return checked(layouts, () => handled);
}

/** Interleaved CPU-timed batches of every layout; the cheapest is kept (a later one if > 3 % cheaper). */
export async function pilotInProcess(peer: string, layouts: Layouts): Promise<InProcessLayout> {
  if (layouts.length === 1) {
    console.log(`  pilot, ${peer}: ${layouts[0].layout} (its only layout)`);
    return layouts[0];
  }
  const results = await compare(Object.fromEntries(layouts.map((l) => [l.layout, l.run])), {
    minMs: 200,
    rounds: 2,
    print: false,
  });
  let best = layouts[0];
  const us = (l: InProcessLayout) => (results[l.layout]?.nsPerOp ?? Number.POSITIVE_INFINITY) / 1000;
  for (const l of layouts) if (us(l) < us(best) / 1.03) best = l;
  const seen = layouts.map((l) => `${l.layout} ${us(l).toFixed(1)} µs`).join(', ');
  console.log(`  pilot, ${peer}: ${seen} → ${best.layout}`);
  return best;
}
