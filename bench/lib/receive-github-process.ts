/**
 * bench:receive, GitHub in process: the same comparison as the HTTP rows without HTTP and without the
 * load generator, so on a shared machine the ratio is not the scheduler's. Each peer is first piloted
 * over its layouts (bench/lib/receive-github-process-peers.ts); then batches of every case are
 * interleaved and timed in this process's CPU time (bench/lib/measure.ts), one `compare` per round,
 * the case order reversed every other round, over BENCH_ROUNDS rounds:
 *   limit    HMAC-SHA256 + timingSafeEqual + JSON.parse of the body;
 *   octokit  `@octokit/webhooks` at its best layout (`verifyAndReceive`, or `verify` + `receive`);
 *   methods  `@octokit/webhooks-methods` `verify` + JSON.parse at its best layout;
 *   ours     `receiver.handle()` with zod validation (strict), dedupe off; and with validation off;
 *   schema   the event's generated schema (`eventValidators`: predicate fast path, zod for the rest) on the
 *            already-parsed payload (the cost validation adds);
 *   zod      the zod schema behind it alone (what validation cost before the fast path).
 * Returns the pairings for the section's summary; target: ours ≥ 0.9× octokit at its best.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import os from 'node:os';
import type { Contract, EventMapBase, StandardSchemaV1 } from '../../runtime/contract.js';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import type { Receiver } from '../../runtime/receive/types.js';
import type { Example } from './github-module.js';
import { median, spread } from './load.js';
import { compare } from './measure.js';
import { methodsInProcess, octokitInProcess, pilotInProcess } from './receive-github-process-peers.js';
import type { Pairing } from './receive-github-summary.js';

const TARGET = 0.9;

export async function githubInProcess(
  contract: Contract<EventMapBase>,
  schemas: { readonly [event: string]: StandardSchemaV1 },
  payloads: readonly Example[],
  secret: string,
  takesBuffer: boolean,
): Promise<Pairing[]> {
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
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
  const events = payloads.map((p) => p.event);
  console.log(
    `GitHub in process (no HTTP, CPU-timed interleaved batches, ${rounds} paired rounds; ours = receiver.handle(), dedupe off):`,
  );
  const pairings: Pairing[] = [];
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
    console.log(`  ${payload.event}`);
    const octokitPeer = '@octokit/webhooks';
    const methodsPeer = '@octokit/webhooks-methods verify + JSON.parse';
    const octokit = await pilotInProcess(
      octokitPeer,
      await octokitInProcess(secret, events, payload, signature),
    );
    const methods = await pilotInProcess(
      methodsPeer,
      await methodsInProcess(secret, payload, signature, takesBuffer),
    );
    const cases = {
      limit: () => {
        const expected = createHmac('sha256', secret).update(bytes).digest();
        if (!timingSafeEqual(Buffer.from(signature.slice(7), 'hex'), expected))
          throw new Error('bad signature');
        JSON.parse(bytes.toString('utf8'));
      },
      octokit: octokit.run,
      ours: () => expectProcessed(validated),
      methods: methods.run,
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
    type Case = keyof typeof cases;
    const perRound: Record<Case, number>[] = [];
    const loads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // Batches run in the object's order: reversed every other round, so no case always goes first.
      const entries = Object.entries(cases);
      const ordered = Object.fromEntries(round % 2 === 0 ? entries : entries.reverse());
      const results = await compare(ordered, { minMs: 300, rounds: 3, print: false });
      perRound.push(
        Object.fromEntries(Object.entries(results).map(([k, r]) => [k, r.nsPerOp / 1000])) as Record<
          Case,
          number
        >,
      );
      loads.push(os.loadavg()[0] ?? 0);
    }
    const us = (key: Case) => median(perRound.map((r) => r[key])).toFixed(1);
    const ratio = (peer: Case) => perRound.map((r) => r[peer] / r.ours);
    console.log(
      `    limit ${us('limit')} µs  octokit ${us('octokit')} µs  methods ${us('methods')} µs  ours validated ${us('ours')} µs  ours unvalidated ${us('oursOff')} µs  schema alone ${us('schema')} µs (zod alone ${us('zod')} µs)`,
    );
    console.log(
      `    theirs ÷ ours validated, per round: octokit ${spread(ratio('octokit'))}, methods ${spread(ratio('methods'))}`,
    );
    const where = 'in process';
    pairings.push(
      {
        event: payload.event,
        where,
        peer: octokitPeer,
        layout: octokit.layout,
        cpu: ratio('octokit'),
        loads,
        target: TARGET,
      },
      {
        event: payload.event,
        where,
        peer: methodsPeer,
        layout: methods.layout,
        cpu: ratio('methods'),
        loads,
      },
    );
  }
  console.log('');
  await validated.stop();
  await unvalidated.stop();
  return pairings;
}
