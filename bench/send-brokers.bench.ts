/**
 * Publishing to brokers, one run (`npm run bench:send` runs it after the HTTP rows). The limit: a
 * bare confirmed publish loop — amqplib on a confirm channel (`publish` + its confirm callback) and
 * nats `js.publish` (awaiting the JetStream ack) — with the same bodies and headers. Against it: the
 * engine end to end, SQLite outbox → delivery worker → `amqpDestination` / `natsDestination`
 * (claim under a lease, Standard Webhooks signing, publish, confirm, attempt record, state change).
 *
 * Each side at its best: a pilot tries the bare loop with 32 / 128 / 512 publishes in flight and the
 * worker with concurrency 32 / 128 / 512, and keeps the fastest (printed). Then paired rounds,
 * alternating which side goes first; the median of per-round ratios and their range are reported.
 *
 *   npx tsx bench/send-brokers.bench.ts   (BENCH_BROKER_MESSAGES=10000 BENCH_ROUNDS=3;
 *                                          AMQP_URL / NATS_URL as the tests)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import amqplib from 'amqplib';
import * as nats from 'nats';
import { amqpDestination } from '../runtime/deliver/destinations/amqp.js';
import { natsDestination } from '../runtime/deliver/destinations/nats.js';
import { createSender } from '../runtime/deliver/sender.js';
import { sqliteOutbox } from '../runtime/deliver/sqlite-outbox.js';
import { createWorker } from '../runtime/deliver/worker.js';
import { createEndpointManager } from '../runtime/manage/endpoints.js';
import { standardWebhookHeaders } from '../runtime/signing/standard-webhooks.js';
import { loadAverage, median, pickBest, spread, startLoad, verdict } from './lib/load.js';
import { contract, LOCAL, payload } from './lib/order-contract.js';

const MESSAGES = Number(process.env.BENCH_BROKER_MESSAGES ?? 10000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PILOT = Math.max(1000, Math.floor(MESSAGES / 4));
const WINDOWS: readonly [number, ...number[]] = [32, 128, 512];
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

/** What the bare loop publishes: the bodies and signature headers the engine would. */
async function signedMessages(count: number, tag: string) {
  const timestamp = Math.floor(Date.now() / 1000);
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const id = `msg_${tag}_${i}`;
      const body = JSON.stringify({
        id,
        type: 'order.paid',
        timestamp: new Date(timestamp * 1000).toISOString(),
        data: payload(i),
      });
      const headers = standardWebhookHeaders({ id, timestamp, body, secret: SECRET });
      return { id, body: Buffer.from(body), headers: { ...headers, 'content-type': 'application/json' } };
    }),
  );
}

type Signed = Awaited<ReturnType<typeof signedMessages>>[number];

interface Engine {
  readonly name: string;
  /** Fresh target (queue / stream), its endpoint URL and a cleanup. */
  target(tag: string): Promise<{ url: string; cleanup(): Promise<void> }>;
  /** The bare side: a publish into the target that resolves on the broker's confirm. */
  publisher(tag: string): Promise<{ publish(m: Signed): Promise<void>; close(): Promise<void> }>;
  close(): Promise<void>;
}

async function rabbitmq(): Promise<Engine> {
  const connection = await amqplib.connect(AMQP_URL);
  const admin = await connection.createChannel();
  const base = new URL(AMQP_URL);
  const queueOf = (tag: string) => `gw_bench_send_${process.pid}_${tag}`;
  return {
    name: 'RabbitMQ',
    async target(tag) {
      const queue = queueOf(tag);
      await admin.assertQueue(queue, { durable: true });
      return {
        url: `amqp://${base.username}:${base.password}@${base.hostname}:${base.port || 5672}/?routingKey=${queue}`,
        cleanup: async () => void (await admin.deleteQueue(queue)),
      };
    },
    async publisher(tag) {
      const queue = queueOf(tag);
      const channel = await connection.createConfirmChannel();
      return {
        publish: (m) =>
          new Promise<void>((resolve, reject) =>
            channel.publish(
              '',
              queue,
              m.body,
              { headers: m.headers, persistent: true, mandatory: true },
              (e) => (e ? reject(e) : resolve()),
            ),
          ),
        close: () => channel.close(),
      };
    },
    close: () => connection.close(),
  };
}

async function jetstream(): Promise<Engine> {
  const nc = await nats.connect({ servers: NATS_URL });
  const jsm = await nc.jetstreamManager();
  const js = nc.jetstream();
  const streamOf = (tag: string) => `GW_BENCH_SEND_${process.pid}_${tag}`;
  return {
    name: 'JetStream',
    async target(tag) {
      const stream = streamOf(tag);
      await jsm.streams.add({ name: stream, subjects: [`${stream}.e`] });
      return {
        url: `nats://${new URL(NATS_URL).host}?subject=${stream}.e`,
        cleanup: async () => void (await jsm.streams.delete(stream)),
      };
    },
    async publisher(tag) {
      const subject = `${streamOf(tag)}.e`;
      return {
        publish: async (m) => {
          const h = nats.headers();
          for (const [k, v] of Object.entries(m.headers)) h.set(k, v);
          await js.publish(subject, m.body, { headers: h, msgID: m.id });
        },
        close: async () => undefined,
      };
    },
    close: () => nc.close(),
  };
}

/** The limit: `count` signed messages published with `window` confirms outstanding; msgs/s. */
async function bareRun(engine: Engine, tag: string, count: number, window: number): Promise<number> {
  const { cleanup } = await engine.target(tag);
  const messages = await signedMessages(count, tag);
  const publisher = await engine.publisher(tag);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: window }, async () => {
      while (next < messages.length) await publisher.publish(messages[next++] as Signed);
    }),
  );
  const rate = (count / (performance.now() - started)) * 1000;
  await publisher.close();
  await cleanup();
  return rate;
}

/** The engine: enqueue `count` sends, then time the worker from start until nothing is pending. */
async function engineRun(engine: Engine, tag: string, count: number, concurrency: number): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-brokers-'));
  const { url, cleanup } = await engine.target(tag);
  const outbox = sqliteOutbox(path.join(dir, 'outbox.db'));
  try {
    const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
    await manager.register({ url, events: ['order.paid'] });
    const sender = createSender(contract, { outbox });
    for (let i = 0; i < count; i++) await sender.send('order.paid', payload(i));
    const worker = createWorker({
      outbox,
      contract,
      urlPolicy: LOCAL,
      concurrency,
      pollIntervalMs: 5,
      disableAfterFailures: 0,
      destinations: [amqpDestination(amqplib), natsDestination(nats)],
    });
    const started = performance.now();
    worker.start();
    while ((await outbox.nextDueAt()) !== undefined) await new Promise((r) => setTimeout(r, 2));
    const rate = (count / (performance.now() - started)) * 1000;
    await worker.stop();
    const succeeded = await outbox.listDeliveries({ status: 'succeeded', limit: count + 1 });
    if (succeeded.length !== count) throw new Error(`${engine.name}: ${succeeded.length}/${count} delivered`);
    return rate;
  } finally {
    await outbox.close();
    await cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(
    `node ${process.version}, ${MESSAGES} messages per run, ${ROUNDS} paired rounds, 270-byte payloads`,
  );
  const machine = startLoad();
  for (const open of [rabbitmq, jetstream]) {
    const engine = await open();
    console.log(`\nPublish through the outbox, ${engine.name}`);
    const bareWindow = await pickBest('bare, publishes in flight ', WINDOWS, (w, tag) =>
      bareRun(engine, `b${tag}`, PILOT, w),
    );
    const workerConcurrency = await pickBest('engine, worker concurrency', WINDOWS, (w, tag) =>
      engineRun(engine, `e${tag}`, PILOT, w),
    );
    const bare: number[] = [];
    const ours: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const runBare = async () => bare.push(await bareRun(engine, `b${round}`, MESSAGES, bareWindow));
      const runOurs = async () =>
        ours.push(await engineRun(engine, `e${round}`, MESSAGES, workerConcurrency));
      if (round % 2 === 0) {
        await runBare();
        await runOurs();
      } else {
        await runOurs();
        await runBare();
      }
      console.log(
        `  round ${round + 1}: bare ${bare[round]?.toFixed(0)}, engine ${ours[round]?.toFixed(0)} msgs/s; ${loadAverage()}`,
      );
    }
    const ratios = ours.map((r, i) => r / (bare[i] as number));
    console.log(
      `  bare confirmed publish loop, ${bareWindow} in flight   median ${median(bare).toFixed(0)} msgs/s`,
    );
    console.log(
      `  outbox → worker → destination, concurrency ${workerConcurrency}   median ${median(ours).toFixed(0)} msgs/s`,
    );
    console.log(
      `  ratio engine / bare, per round: ${spread(ratios)} (target ≥ 0.50×): ${verdict(median(ratios) >= 0.5, machine)}`,
    );
    await engine.close();
  }
  console.log(`\n${loadAverage()} after the run`);
}

await main();
