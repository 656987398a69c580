/**
 * bench:receive, GitHub in process: the same comparison as the HTTP rows without HTTP and without the
 * load generator, so on a shared machine the ratio is not the scheduler's. Batches of each case are
 * interleaved and timed in this process's CPU time (bench/lib/measure.ts), over BENCH_ROUNDS rounds:
 *   limit    HMAC-SHA256 + timingSafeEqual + JSON.parse of the body;
 *   octokit  `webhooks.verifyAndReceive()` (what its middleware calls: verify, parse, dispatch);
 *   ours     `receiver.handle()` with zod validation (strict), dedupe off; and with validation off;
 *   schema   the event's generated schema (`eventValidators`: predicate fast path, zod for the rest) on the
 *            already-parsed payload (the cost validation adds);
 *   zod      the zod schema behind it alone (what validation cost before the fast path).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhooks } from '@octokit/webhooks';
import type { Contract, EventMapBase, StandardSchemaV1 } from '../../runtime/contract.js';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import type { Receiver } from '../../runtime/receive/types.js';
import type { Example } from './github-module.js';
import { type MachineLoad, median, spread, verdict } from './load.js';
import { compare } from './measure.js';

const TARGET = 0.8;

export async function githubInProcess(
  contract: Contract<EventMapBase>,
  schemas: { readonly [event: string]: StandardSchemaV1 },
  payloads: readonly Example[],
  secret: string,
  machine: MachineLoad,
): Promise<void> {
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
  const webhooks = new Webhooks({ secret });
  const ok = () => {};
  const make = (validation: 'strict' | 'off') =>
    createReceiver(contract, {
      secret,
      dedupe: false,
      validation,
      handlers: Object.fromEntries(payloads.map((p) => [p.event, ok])),
    }) as Receiver<never>;
  const validated = make('strict');
  const unvalidated = make('off');
  for (const p of payloads) webhooks.on(p.event as 'issues.opened', ok);
  console.log(
    `GitHub in process (no HTTP, CPU-timed interleaved batches, ${rounds} rounds; ours = receiver.handle(), dedupe off):`,
  );
  const summary: string[] = [];
  for (const payload of payloads) {
    const signature = `sha256=${createHmac('sha256', secret).update(payload.body).digest('hex')}`;
    const bytes = Buffer.from(payload.body);
    let n = 0;
    const headers = () => ({
      'content-type': 'application/json',
      'x-github-event': payload.header,
      'x-github-delivery': `d-${++n}`,
      'x-hub-signature-256': signature,
    });
    const parsed: unknown = JSON.parse(payload.body);
    const schema = schemas[payload.event];
    if (schema === undefined) throw new Error(`no schema for ${payload.event}`);
    // eventValidators' fast path keeps the zod schema as its prototype (generator/emit/validators-file.ts).
    const zodSchema = Object.getPrototypeOf(schema) as StandardSchemaV1;
    const expectProcessed = async (receiver: Receiver<never>) => {
      const result = await receiver.handle({ headers: headers(), body: bytes });
      if (result.status !== 200) throw new Error(`${payload.event}: ${result.status} ${result.body}`);
    };
    const cases = {
      limit: () => {
        const expected = createHmac('sha256', secret).update(bytes).digest();
        if (!timingSafeEqual(Buffer.from(signature.slice(7), 'hex'), expected))
          throw new Error('bad signature');
        JSON.parse(bytes.toString('utf8'));
      },
      octokit: () =>
        webhooks.verifyAndReceive({
          id: `d-${++n}`,
          name: payload.header as 'issues',
          signature,
          payload: payload.body,
        }),
      ours: () => expectProcessed(validated),
      oursOff: () => expectProcessed(unvalidated),
      schema: () => {
        const result = schema['~standard'].validate(parsed) as StandardSchemaV1.Result<unknown>;
        if (result.issues !== undefined) throw new Error(`${payload.event} does not validate`);
      },
      zod: () => {
        const result = zodSchema['~standard'].validate(parsed) as StandardSchemaV1.Result<unknown>;
        if (result.issues !== undefined) throw new Error(`${payload.event} does not validate`);
      },
    };
    // One `compare` per round, so the per-round ratios give a spread as well as a median.
    const perRound: Record<keyof typeof cases, number>[] = [];
    for (let round = 0; round < rounds; round++) {
      const results = await compare(cases, { minMs: 300, rounds: 3, print: false });
      perRound.push(
        Object.fromEntries(Object.entries(results).map(([k, r]) => [k, r.nsPerOp / 1000])) as Record<
          keyof typeof cases,
          number
        >,
      );
    }
    const us = (key: keyof typeof cases) => median(perRound.map((r) => r[key])).toFixed(1);
    const ratios = perRound.map((r) => r.octokit / r.ours);
    console.log(
      `  ${payload.event.padEnd(20)} limit ${us('limit')} µs  octokit ${us('octokit')} µs  ours validated ${us('ours')} µs  ours unvalidated ${us('oursOff')} µs  schema alone ${us('schema')} µs (zod alone ${us('zod')} µs)`,
    );
    console.log(`  ${''.padEnd(20)} octokit ÷ ours validated, per round: ${spread(ratios)}`);
    summary.push(
      `target ${payload.event} in process (ours validated ≥ ${TARGET}× octokit by CPU): ${median(ratios).toFixed(2)}×: ${verdict(median(ratios) >= TARGET, machine)}`,
    );
  }
  for (const line of summary) console.log(line);
  console.log('');
  await validated.stop();
  await unvalidated.stop();
}
