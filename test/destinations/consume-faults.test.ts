/**
 * A broker consumer SIGKILLed mid-handler (its effect written in the store's transaction, not yet
 * committed), then a second consumer process drains the queue: no event lost, exactly one committed
 * effect per event — on RabbitMQ and on JetStream.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import amqp from 'amqplib';
import { AckPolicy, connect, headers, nanos } from 'nats';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adopted, type Delivery, delivery } from '../receiver/fixtures.js';
import { missingEnv } from '../support/requires.js';
import { AMQP_URL, NATS_URL, sleep, unique, until } from './consume-support.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const missing =
  missingEnv('DATABASE_URL', 'the consumer crash tests') ||
  missingEnv('AMQP_URL', 'the consumer crash tests') ||
  missingEnv('NATS_URL', 'the consumer crash tests');

function consumer(env: Record<string, string>): {
  child: ChildProcess;
  saw: (line: string) => Promise<void>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'consume-child.ts')], {
    cwd: path.resolve(here, '../..'),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  return { child, saw: (line) => until(() => out.includes(`${line}\n`), 20_000) };
}

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

describe.skipIf(missing)('a consumer SIGKILLed mid-handler', () => {
  let pool: pg.Pool;
  const children: ChildProcess[] = [];
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: process.env['DATABASE_URL'], max: 2 });
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await pool?.end();
  });

  /** Tables of one run; `count` is the committed effects per event. */
  async function tables() {
    const table = unique('idem');
    const effects = unique('effects');
    await pool.query(`CREATE TABLE ${effects} (event text NOT NULL, pet text NOT NULL)`);
    return {
      env: { TABLE: table, EFFECTS: effects },
      counts: async () =>
        (await pool.query(`SELECT event, count(*)::int AS n FROM ${effects} GROUP BY event`)).rows as {
          event: string;
          n: number;
        }[],
      drop: () => pool.query(`DROP TABLE IF EXISTS ${effects}, ${table}`),
    };
  }

  async function crashAndRecover(
    engine: string,
    name: string,
    sent: readonly Delivery[],
    drained: () => Promise<boolean>,
  ) {
    const t = await tables();
    const first = consumer({ ...t.env, ENGINE: engine, NAME: name, HANG_ON: 'p3' });
    children.push(first.child);
    await first.saw('HANDLER_STARTED');
    await killed(first.child);
    const second = consumer({ ...t.env, ENGINE: engine, NAME: name });
    children.push(second.child);
    await second.saw('READY');
    await until(async () => (await t.counts()).length === sent.length && (await drained()), 30_000);
    // A RabbitMQ queue's depth omits unacked messages: once the consumer is gone, anything it had not
    // acked is back in the queue, so an empty queue now means every event was settled.
    await killed(second.child);
    await sleep(500);
    expect(await drained()).toBe(true);
    const counts = await t.counts();
    await t.drop();
    expect(counts.map((c) => c.event).sort()).toEqual(sent.map((d) => d.headers['webhook-id']).sort());
    expect(counts.every((c) => c.n === 1)).toBe(true);
  }

  const eight = () => Array.from({ length: 8 }, (_, i) => delivery('pet.adopted', adopted(`p${i}`)));

  it('RabbitMQ: 0 lost, 1 effect per event', async () => {
    const connection = await amqp.connect(AMQP_URL);
    const channel = await connection.createChannel();
    const queue = unique('crash');
    await channel.assertQueue(queue, { durable: false });
    const sent = eight();
    for (const d of sent) channel.sendToQueue(queue, Buffer.from(d.body), { headers: d.headers });
    try {
      await crashAndRecover(
        'amqp',
        queue,
        sent,
        async () => (await channel.checkQueue(queue)).messageCount === 0,
      );
    } finally {
      await channel.deleteQueue(queue);
      await connection.close();
    }
  }, 60_000);

  it('JetStream: 0 lost, 1 effect per event', async () => {
    const nc = await connect({ servers: NATS_URL });
    const jsm = await nc.jetstreamManager();
    const stream = unique('crash');
    await jsm.streams.add({ name: stream, subjects: [`${stream}.events`] });
    await jsm.consumers.add(stream, {
      durable_name: 'workers',
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(2000),
    });
    const js = nc.jetstream();
    const sent = eight();
    for (const d of sent) {
      const h = headers();
      for (const [k, v] of Object.entries(d.headers)) h.set(k, v);
      await js.publish(`${stream}.events`, new TextEncoder().encode(d.body), {
        headers: h,
        msgID: d.headers['webhook-id'],
      });
    }
    const drained = async () => {
      const info = await jsm.consumers.info(stream, 'workers');
      return info.num_pending + info.num_ack_pending === 0;
    };
    try {
      await crashAndRecover('jetstream', stream, sent, drained);
    } finally {
      await jsm.streams.delete(stream);
      await nc.close();
    }
  }, 60_000);
});
