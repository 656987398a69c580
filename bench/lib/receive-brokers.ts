/**
 * Broker consumers (`BENCH_ONLY=brokers`): per engine, the same pre-signed Petstore messages drained
 * by a bare consumer (JSON.parse + ack, the limit) and by `receiver.consumeAmqp` / `consumeJetStream`
 * with a SQLite store (verify + replay window + zod + claim/complete, then ack), in interleaved
 * rounds on fresh queues. msgs/s = messages / time from the first consume call to the last ack.
 * BENCH_BROKER_MESSAGES (default 10000) per run; each side's prefetch is the best of 16 / 64 / 256 in a
 * pilot (printed); AMQP_URL / NATS_URL as the tests.
 */
import path from 'node:path';
import amqp from 'amqplib';
import { AckPolicy, connect, headers as natsHeaders } from 'nats';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import { petstore, SECRET } from '../../test/receiver/fixtures.js';
import { type MachineLoad, median, pickBest, spread, verdict } from './load.js';

type Signed = { headers: Record<string, string>; body: string };
const count = Number(process.env['BENCH_BROKER_MESSAGES'] ?? 10000);

function receiverIn(dir: string, run: string, onDone: () => void) {
  return createReceiver(petstore, {
    secret: SECRET,
    // The path form, as documented: the store opens the file in WAL mode with synchronous=NORMAL.
    store: sqliteStore(path.join(dir, `broker-${run}.db`)),
    handlers: { 'pet.adopted': () => onDone() },
  });
}

async function amqpRun(
  deliveries: readonly Signed[],
  dir: string,
  kind: 'bare' | 'receiver',
  run: string,
  prefetch: number,
) {
  const connection = await amqp.connect(process.env['AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672');
  const channel = await connection.createChannel();
  const queue = `gw_bench_${process.pid}_${run}`;
  await channel.assertQueue(queue, { durable: false });
  for (const d of deliveries) channel.sendToQueue(queue, Buffer.from(d.body), { headers: d.headers });
  await channel.checkQueue(queue); // a round trip: every publish reached the broker
  let done = 0;
  let finish: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const tick = () => {
    if (++done === deliveries.length) finish();
  };
  const started = performance.now();
  let stop: () => Promise<unknown>;
  if (kind === 'bare') {
    await channel.prefetch(prefetch);
    const { consumerTag } = await channel.consume(queue, (m) => {
      if (m === null) return;
      JSON.parse(m.content.toString('utf8'));
      channel.ack(m);
      tick();
    });
    stop = () => channel.cancel(consumerTag);
  } else {
    // The handler counts runs; the last ack follows its completion by one await.
    const c = await receiverIn(dir, run, tick).consumeAmqp(channel, queue, { prefetch });
    stop = () => c.stop();
  }
  await all;
  const ms = performance.now() - started;
  await stop();
  await channel.deleteQueue(queue);
  await connection.close();
  return (deliveries.length / ms) * 1000;
}

async function jetStreamRun(
  deliveries: readonly Signed[],
  dir: string,
  kind: 'bare' | 'receiver',
  run: string,
  prefetch: number,
) {
  const nc = await connect({ servers: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222' });
  const jsm = await nc.jetstreamManager();
  const stream = `GW_BENCH_${process.pid}_${run}`;
  await jsm.streams.add({ name: stream, subjects: [`${stream}.e`] });
  await jsm.consumers.add(stream, { durable_name: 'w', ack_policy: AckPolicy.Explicit });
  const js = nc.jetstream();
  await Promise.all(
    deliveries.map((d) => {
      const h = natsHeaders();
      for (const [k, v] of Object.entries(d.headers)) h.set(k, v);
      return js.publish(`${stream}.e`, new TextEncoder().encode(d.body), { headers: h });
    }),
  );
  const consumer = await js.consumers.get(stream, 'w');
  let done = 0;
  let finish: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const tick = () => {
    if (++done === deliveries.length) finish();
  };
  const started = performance.now();
  let stop: () => Promise<unknown>;
  if (kind === 'bare') {
    const messages = await consumer.consume({ max_messages: prefetch });
    void (async () => {
      for await (const m of messages) {
        JSON.parse(new TextDecoder().decode(m.data));
        m.ack();
        tick();
      }
    })();
    stop = () => messages.close();
  } else {
    const c = await receiverIn(dir, run, tick).consumeJetStream(consumer, { prefetch });
    stop = () => c.stop();
  }
  await all;
  const ms = performance.now() - started;
  await stop();
  await jsm.streams.delete(stream);
  await nc.close();
  return (deliveries.length / ms) * 1000;
}

const PREFETCHES: readonly [number, ...number[]] = [16, 64, 256];
const pilotCount = Math.max(500, Math.floor(count / 3));

type RunOnce = typeof amqpRun;

/** Each side at its best prefetch, from a short pilot. */
function pilot(
  runOnce: RunOnce,
  dir: string,
  kind: 'bare' | 'receiver',
  engine: string,
  signed: (prefix: string) => Signed,
): Promise<number> {
  return pickBest(`${kind.padEnd(8)} prefetch`, PREFETCHES, (prefetch, tag) =>
    runOnce(
      Array.from({ length: pilotCount }, () => signed(`${engine}${tag}${kind}`)),
      dir,
      kind,
      `${tag}_${kind}`,
      prefetch,
    ),
  );
}

export async function brokerBench(
  dir: string,
  machine: MachineLoad,
  rounds: number,
  signed: (prefix: string) => Signed,
): Promise<void> {
  for (const [engine, runOnce] of [
    ['RabbitMQ', amqpRun],
    ['JetStream', jetStreamRun],
  ] as const) {
    console.log(`\nBroker consumer, ${engine}: ${count} Petstore messages per run, ${rounds} rounds`);
    const prefetch = {
      bare: await pilot(runOnce, dir, 'bare', engine, signed),
      receiver: await pilot(runOnce, dir, 'receiver', engine, signed),
    };
    const bare: number[] = [];
    const dedupe: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['bare', 'receiver'] as const) : (['receiver', 'bare'] as const);
      for (const kind of order) {
        const deliveries = Array.from({ length: count }, () => signed(`${engine}${round}${kind}`));
        const rate = await runOnce(deliveries, dir, kind, `${round}_${kind}`, prefetch[kind]);
        (kind === 'bare' ? bare : dedupe).push(rate);
      }
    }
    const ratios = dedupe.map((r, i) => r / (bare[i] as number));
    console.log(
      `  bare consumer (JSON.parse + ack), prefetch ${prefetch.bare}     ${median(bare).toFixed(0).padStart(8)} msgs/s`,
    );
    console.log(
      `  consume with dedupe (SQLite store), prefetch ${prefetch.receiver}  ${median(dedupe).toFixed(0).padStart(8)} msgs/s`,
    );
    console.log(
      `  ratio dedupe / bare, per round: ${spread(ratios)} (target ≥ 0.60×): ${verdict(median(ratios) >= 0.6, machine)}`,
    );
  }
}
