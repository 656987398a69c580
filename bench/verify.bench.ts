/**
 * Verification throughput, one run: raw node:crypto HMAC-SHA256 + timingSafeEqual over the same
 * signed content (the ceiling), gen-webhooks' full verify (header parsing, timestamp window, compare),
 * the `standardwebhooks` and `svix` verifiers. 1 KiB and 16 KiB bodies.
 *
 * The whole comparison repeats BENCH_REPEAT times (each repetition's ratios come from its own
 * interleaved batches); the targets are judged on the median ratio, and count as met only when the
 * load average before the run says the machine was not busy with other work (bench/lib/load.ts).
 *
 *   npx tsx bench/verify.bench.ts      (BENCH_MS=2000 BENCH_ROUNDS=5 BENCH_REPEAT=3 for longer, steadier runs)
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { standardWebhookHeaders, standardWebhooks } from '../runtime/signing/standard-webhooks.js';
import { standardWebhooksWeb } from '../runtime/signing/web.js';
import { loadAverage, median, spread, startLoad, verdict } from './lib/load.js';
import { compare, ratio } from './lib/measure.js';

const minMs = Number(process.env.BENCH_MS ?? 1000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const repeat = Number(process.env.BENCH_REPEAT ?? 3);
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const key = Buffer.from(secret.slice(6), 'base64');

function jsonBody(size: number): Buffer {
  const filler = 'x'.repeat(size);
  const text = JSON.stringify({ type: 'invoice.paid', data: { note: filler } });
  return Buffer.from(text.slice(0, size - 3) + '"}}');
}

const ours = standardWebhooks({ secret });
const oursWeb = standardWebhooksWeb({ secret });
const theirs = new StandardWebhook(secret);
const svix = new SvixWebhook(secret);

console.log(
  `node ${process.version}, ${minMs} ms × ${rounds} per case (${process.env.BENCH_CLOCK === 'wall' ? 'wall' : 'CPU'} time), ` +
    `batches interleaved, median batch rate; the whole comparison ${repeat} times`,
);
const machine = startLoad();
console.log('');

const targets: { size: string; rawRatio: number[]; swRatio: number[] }[] = [];
for (let repetition = 1; repetition <= repeat; repetition++) {
  console.log(`════ repetition ${repetition} of ${repeat}: ${loadAverage()}`);
  await oneRepetition();
}

async function oneRepetition(): Promise<void> {
  for (const size of [1024, 16 * 1024]) {
    const body = jsonBody(size);
    const text = body.toString('utf8');
    const id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
    // Slightly in the future: the delivery stays inside every verifier's ±300 s window for ~9 minutes.
    const timestamp = Math.floor(Date.now() / 1000) + 240;
    const headers = standardWebhookHeaders({ id, timestamp, body, secret });
    const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body]);
    const expected = Buffer.from((headers['webhook-signature'] ?? '').slice(3), 'base64');

    // Sanity: every verifier accepts the delivery before we time it.
    if (!timingSafeEqual(createHmac('sha256', key).update(signed).digest(), expected))
      throw new Error('raw mismatch');
    ours.verify({ headers, body });
    await oursWeb.verify({ headers, body });
    theirs.verify(text, headers);
    svix.verify(text, headers);

    const kib = `${size / 1024} KiB`;
    const raw = () => timingSafeEqual(createHmac('sha256', key).update(signed).digest(), expected);
    const mine = () => ours.verify({ headers, body });
    // Groups, each interleaved: in one process the allocation-heavy JS verifiers' garbage is collected
    // partly on the other cases' clock, so the ceiling comparison runs without them.
    console.log(`── body ${kib}: the ceiling`);
    const limit = await compare(
      {
        [`raw node:crypto HMAC + timingSafeEqual (${kib})`]: raw,
        [`gen-webhooks verify, node (${kib})`]: mine,
      },
      { minMs, rounds },
    );
    console.log(`── body ${kib}: other verifiers`);
    const others = await compare(
      {
        [`gen-webhooks verify, node (${kib})`]: mine,
        [`standardwebhooks verify (${kib})`]: () => theirs.verify(text, headers),
        [`svix verify (${kib})`]: () => svix.verify(text, headers),
        [`gen-webhooks verify, web crypto (${kib})`]: () => oursWeb.verify({ headers, body }),
      },
      { minMs, rounds },
    );
    const [rawResult, oursAlone] = Object.values(limit);
    const [oursShared, standard, svixResult, web] = Object.values(others);
    if (
      rawResult === undefined ||
      oursAlone === undefined ||
      oursShared === undefined ||
      standard === undefined ||
      svixResult === undefined ||
      web === undefined
    ) {
      continue;
    }
    const rawRatio = ratio('ours / raw', oursAlone, rawResult);
    const swRatio = ratio('ours / standardwebhooks', oursShared, standard);
    ratio('ours / svix', oursShared, svixResult);
    ratio('web crypto / node', web, oursShared);
    const label = `${size / 1024} KiB`;
    let target = targets.find((t) => t.size === label);
    if (target === undefined) {
      target = { size: label, rawRatio: [], swRatio: [] };
      targets.push(target);
    }
    target.rawRatio.push(rawRatio);
    target.swRatio.push(swRatio);
    console.log('');
  }
}

for (const { size, rawRatio, swRatio } of targets) {
  console.log(
    `${size}, per repetition: ours / raw ${spread(rawRatio)}, ours / standardwebhooks ${spread(swRatio)}`,
  );
}
const oneKiB = targets[0];
if (oneKiB !== undefined) {
  const raw = median(oneKiB.rawRatio);
  const sw = median(oneKiB.swRatio);
  console.log(
    `targets on 1 KiB (ours ≥ 0.85× raw, ≥ 5× standardwebhooks), medians ${raw.toFixed(2)}×, ${sw.toFixed(2)}×: ` +
      verdict(raw >= 0.85 && sw >= 5, machine),
  );
}
console.log(`${loadAverage()} after the run`);
