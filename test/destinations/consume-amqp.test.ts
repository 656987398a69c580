/**
 * `receiver.consumeAmqp` against a real RabbitMQ: each message (signed body + webhook headers) runs
 * the receive pipeline once; failures are republished with an attempt count, then dead-lettered to the
 * queue's `x-dead-letter-exchange`; verification failures go there at once.
 */
import amqp, { type Channel, type ChannelModel } from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ackFastAmqp } from '../../runtime/receive/ack-fast-broker.js';
import { adopted, type Delivery, delivery } from '../receiver/fixtures.js';
import { post } from '../receiver/http.js';
import { missingEnv } from '../support/requires.js';
import { AMQP_URL, ackFastServers, petReceiver, sleep, unique, until } from './consume-support.js';

describe.skipIf(missingEnv('AMQP_URL', 'the RabbitMQ consumer tests'))('consumeAmqp', () => {
  let connection: ChannelModel;
  let admin: Channel;
  const queues: string[] = [];

  beforeAll(async () => {
    connection = await amqp.connect(AMQP_URL);
    admin = await connection.createChannel();
  });
  afterAll(async () => {
    for (const q of queues) await admin.deleteQueue(q).catch(() => undefined);
    await connection?.close();
  });

  /** A work queue dead-lettering into its own DLQ (through a fanout exchange). */
  async function queuePair(): Promise<{ queue: string; dlq: string }> {
    const queue = unique('q');
    const dlq = `${queue}_dlq`;
    await admin.assertExchange(`${queue}_dlx`, 'fanout', { autoDelete: true });
    await admin.assertQueue(dlq, { durable: false });
    await admin.bindQueue(dlq, `${queue}_dlx`, '');
    await admin.assertQueue(queue, { durable: false, deadLetterExchange: `${queue}_dlx` });
    queues.push(queue, dlq);
    return { queue, dlq };
  }

  const publish = (queue: string, d: Delivery, headers: Record<string, unknown> = d.headers) =>
    admin.sendToQueue(queue, Buffer.from(d.body), {
      headers,
      messageId: d.headers['webhook-id'],
      contentType: 'application/json',
    });

  const depth = async (queue: string) => (await admin.checkQueue(queue)).messageCount;

  it('handles a valid message once and acks it (Buffer header values normalised)', async () => {
    const { queue, dlq } = await queuePair();
    const seen: string[] = [];
    const receiver = petReceiver((e) => seen.push(e.data.petId));
    const channel = await connection.createChannel();
    const consumption = await receiver.consumeAmqp(channel, queue, { prefetch: 4 });
    const d = delivery('pet.adopted', adopted('rex'));
    publish(queue, d, { ...d.headers, 'webhook-signature': Buffer.from(d.headers['webhook-signature']!) });
    await until(() => seen.length === 1);
    await consumption.stop();
    await channel.close();
    expect(seen).toEqual(['rex']);
    expect(await depth(queue)).toBe(0);
    expect(await depth(dlq)).toBe(0);
  });

  it('runs a duplicate (same webhook-id) once and acks both copies', async () => {
    const { queue, dlq } = await queuePair();
    const seen: string[] = [];
    const receiver = petReceiver((e) => seen.push(e.id));
    const channel = await connection.createChannel();
    const consumption = await receiver.consumeAmqp(channel, queue);
    const d = delivery('pet.adopted', adopted());
    publish(queue, d);
    publish(queue, d);
    await until(async () => seen.length >= 1 && (await depth(queue)) === 0);
    await sleep(200);
    await consumption.stop();
    await channel.close();
    expect(seen).toHaveLength(1);
    expect(await depth(dlq)).toBe(0);
  });

  it('dead-letters a tampered body or signature without calling the handler', async () => {
    const { queue, dlq } = await queuePair();
    const seen: string[] = [];
    const receiver = petReceiver((e) => seen.push(e.id));
    const channel = await connection.createChannel();
    const consumption = await receiver.consumeAmqp(channel, queue);
    const d = delivery('pet.adopted', adopted('rex'));
    publish(queue, { ...d, body: d.body.replace('rex', 'max') });
    const e = delivery('pet.adopted', adopted('rex'));
    publish(queue, e, {
      ...e.headers,
      'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    });
    await until(async () => (await depth(dlq)) === 2);
    await consumption.stop();
    await channel.close();
    expect(seen).toEqual([]);
    const dead = await admin.get(dlq, { noAck: true });
    expect(dead === false ? undefined : dead.properties.headers?.['x-first-death-reason']).toBe('rejected');
  });

  it('redelivers a failed handler and succeeds on attempt 2', async () => {
    const { queue, dlq } = await queuePair();
    let calls = 0;
    const receiver = petReceiver(() => {
      calls += 1;
      if (calls === 1) throw new Error('flaky');
    });
    const channel = await connection.createChannel();
    const consumption = await receiver.consumeAmqp(channel, queue, { maxAttempts: 3 });
    publish(queue, delivery('pet.adopted', adopted()));
    await until(async () => calls === 2 && (await depth(queue)) === 0);
    await sleep(200);
    await consumption.stop();
    await channel.close();
    expect(calls).toBe(2);
    expect(await depth(dlq)).toBe(0);
  });

  it('dead-letters after maxAttempts handler failures', async () => {
    const { queue, dlq } = await queuePair();
    let calls = 0;
    const receiver = petReceiver(() => {
      calls += 1;
      throw new Error('always');
    });
    const channel = await connection.createChannel();
    const consumption = await receiver.consumeAmqp(channel, queue, { maxAttempts: 3 });
    publish(queue, delivery('pet.adopted', adopted()));
    await until(async () => (await depth(dlq)) === 1);
    await sleep(200);
    await consumption.stop();
    await channel.close();
    expect(calls).toBe(3);
    expect(await depth(queue)).toBe(0);
  });

  it('never runs more than `prefetch` handlers at once', async () => {
    const { queue } = await queuePair();
    let running = 0;
    let peak = 0;
    let done = 0;
    const receiver = petReceiver(async () => {
      running += 1;
      peak = Math.max(peak, running);
      await sleep(50);
      running -= 1;
      done += 1;
    });
    const channel = await connection.createChannel();
    const consumption = await receiver.consumeAmqp(channel, queue, { prefetch: 2 });
    for (let i = 0; i < 8; i++) publish(queue, delivery('pet.adopted', adopted(`p${i}`)));
    await until(() => done === 8);
    await consumption.stop();
    await channel.close();
    expect(peak).toBe(2);
  });

  it('ack-fast: HTTP receivers publish to the queue after the confirm; a consumer runs each once', async () => {
    const { queue, dlq } = await queuePair();
    const confirm = await connection.createConfirmChannel();
    const servers = await ackFastServers(() => ackFastAmqp(confirm, queue));
    const seen: string[] = [];
    const channel = await connection.createChannel();
    const worker = await petReceiver((e) => seen.push(e.data.petId)).consumeAmqp(channel, queue);
    const sent = Array.from({ length: 6 }, (_, i) => delivery('pet.adopted', adopted(`p${i}`)));
    for (const [i, d] of sent.entries()) {
      const answer = await post(servers[i % 2]!.url, d);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ status: 'queued' });
    }
    // A sender's retry of an accepted delivery is published again; the consumer dedupes it.
    expect((await post(servers[1]!.url, sent[0]!)).status).toBe(200);
    await until(async () => seen.length === 6 && (await depth(queue)) === 0);
    await sleep(200);
    await worker.stop();
    for (const s of servers) await s.close();
    await channel.close();
    await confirm.close();
    expect(seen.sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    expect(await depth(dlq)).toBe(0);
  });
});
