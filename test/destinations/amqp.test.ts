/**
 * AMQP destinations against the real RabbitMQ on 127.0.0.1 (AMQP_URL): events sent through the
 * outbox (SQLite and PostgreSQL) arrive in a queue with headers a consumer verifies with the
 * runtime's Standard Webhooks verifier; an unroutable publish (no queue bound: `basic.return`), an
 * unknown exchange and a broker that is not there are failed attempts retried on the contract's
 * schedule and then dead-lettered; redelivery publishes again; an ordering key holds the next message
 * until the one before it was confirmed.
 */
import amqplib from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amqpDestination } from '../../runtime/deliver/destinations/amqp.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { verifyStandardWebhook } from '../../runtime/signing/standard-webhooks.js';
import { LOCAL, outboxFixtures, petContract, virtualClock } from '../sender/helpers.js';
import { missingEnv } from '../support/requires.js';
import { AMQP_URL, amqpQueueUrl, stringHeaders, unique } from './brokers.js';

const skip = missingEnv('AMQP_URL', 'the AMQP destination tests');

describe.skipIf(skip).each(outboxFixtures)('amqp: destinations on $name', (fixture) => {
  let connection: amqplib.ChannelModel;
  let channel: amqplib.Channel;
  const cleanups: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    connection = await amqplib.connect(AMQP_URL);
    channel = await connection.createChannel();
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    await connection?.close();
  });

  const setup = async (tag: string, retry = petContract().retry) => {
    const made = await fixture.create(`amqp_${tag}`);
    cleanups.push(made.cleanup);
    const clock = virtualClock(Date.now());
    const contract = petContract(retry);
    const manager = createEndpointManager({
      outbox: made.outbox,
      contract,
      urlPolicy: LOCAL,
      now: clock.now,
    });
    const sender = createSender(contract, { outbox: made.outbox, now: clock.now });
    const worker = createWorker({
      outbox: made.outbox,
      contract,
      urlPolicy: LOCAL,
      now: clock.now,
      destinations: [amqpDestination(amqplib)],
      onError: () => {},
    });
    cleanups.push(() => worker.stop());
    return { ...made, clock, manager, sender, worker };
  };
  const queue = async (tag: string) => {
    const name = unique(tag);
    await channel.assertQueue(name, { durable: false, autoDelete: false });
    cleanups.push(() => channel.deleteQueue(name));
    return name;
  };
  const drain = async (name: string) => {
    const got: amqplib.GetMessage[] = [];
    for (;;) {
      const message = await channel.get(name, { noAck: true });
      if (message === false) return got;
      got.push(message);
    }
  };

  it.skipIf(fixture.skip)('publishes signed events a consumer verifies; ids and bodies intact', async () => {
    const t = await setup('ok');
    const name = await queue('ok');
    const { secret } = await t.manager.register({ url: amqpQueueUrl(name), events: ['*'] });
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push(await t.sender.send('pet.adopted', { petId: `p${i}`, by: 'ann' }));
    const summary = await t.worker.runOnce();
    expect(summary).toMatchObject({ attempted: 3, succeeded: 3 });
    const got = await drain(name);
    expect(got).toHaveLength(3);
    for (const message of got) {
      const headers = stringHeaders(message.properties.headers);
      const body = message.content.toString('utf8');
      const verified = verifyStandardWebhook({ headers, body, secret, now: t.clock.now });
      expect(message.properties.messageId).toBe(verified.id);
      expect(message.properties.contentType).toBe('application/json');
      expect(message.properties.deliveryMode).toBe(2);
      expect(JSON.parse(body).type).toBe('pet.adopted');
    }
    expect(got.map((m) => m.properties.messageId).sort()).toEqual(sent.map((s) => s.messageId).sort());
    // A tampered body does not verify: the headers really sign these bytes.
    const first = got[0] as amqplib.GetMessage;
    expect(() =>
      verifyStandardWebhook({
        headers: stringHeaders(first.properties.headers),
        body: first.content.toString('utf8').replace('p', 'q'),
        secret,
        now: t.clock.now,
      }),
    ).toThrow();
  });

  it.skipIf(fixture.skip)(
    'unroutable → retried on the schedule → dead letter; redelivery publishes again',
    async () => {
      const t = await setup('unroutable', { kind: 'list', delays: [0, 5, 300] });
      const name = unique('late');
      const { endpoint } = await t.manager.register({ url: amqpQueueUrl(name), events: ['*'] });
      const { messageId } = await t.sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
      expect(await t.worker.runOnce()).toMatchObject({ attempted: 1, retried: 1 });
      expect(await t.worker.runOnce()).toMatchObject({ attempted: 0 }); // not due before 5 s
      t.clock.advance(5_000);
      expect(await t.worker.runOnce()).toMatchObject({ attempted: 1, retried: 1 });
      t.clock.advance(300_000);
      expect(await t.worker.runOnce()).toMatchObject({ attempted: 1, dead: 1 });
      const attempts = await t.manager.attempts(endpoint.id);
      expect(attempts).toHaveLength(3);
      for (const a of attempts) {
        expect(a.outcome).toBe('failed');
        expect(a.error).toMatch(/unroutable/);
        expect(a.errorCode).toBe('connection_failed');
      }
      // The queue appears; the dead letter is redelivered and now confirmed.
      await channel.assertQueue(name, { durable: false });
      cleanups.push(() => channel.deleteQueue(name));
      expect(await t.manager.redeliver(endpoint.id, { messageId })).toBe(1);
      expect(await t.worker.runOnce()).toMatchObject({ attempted: 1, succeeded: 1 });
      const got = await drain(name);
      expect(got.map((m) => m.properties.messageId)).toEqual([messageId]);
    },
  );

  it.skipIf(fixture.skip)('unknown exchange and a broker that is not there are retried', async () => {
    const t = await setup('down', { kind: 'list', delays: [0, 5] });
    const base = new URL(AMQP_URL);
    await t.manager.register({
      url: `amqp://guest:guest@${base.hostname}:${base.port || 5672}/?exchange=${unique('noex')}&routingKey=x`,
      events: ['*'],
    });
    // Port 9 (discard) on loopback: nothing listens, the connection is refused.
    await t.manager.register({ url: 'amqp://guest:guest@127.0.0.1:9/?routingKey=q', events: ['*'] });
    await t.sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
    expect(await t.worker.runOnce()).toMatchObject({ attempted: 2, retried: 2 });
    t.clock.advance(5_000);
    expect(await t.worker.runOnce()).toMatchObject({ attempted: 2, dead: 2 });
    const dead = await t.outbox.listDeliveries({ status: 'dead' });
    expect(dead).toHaveLength(2);
    expect(dead.map((d) => d.lastError).join('\n')).toMatch(/NOT_FOUND|no exchange/i);
    expect(dead.map((d) => d.lastError).join('\n')).toMatch(/ECONNREFUSED|connection_refused|publish_failed/);
  });

  it.skipIf(fixture.skip)(
    'an ordering key holds the next message until the one before is confirmed',
    async () => {
      const t = await setup('order', { kind: 'list', delays: [0, 5, 300] });
      const name = unique('order');
      await t.manager.register({ url: amqpQueueUrl(name), events: ['*'] });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push(
          (await t.sender.send('pet.adopted', { petId: `p${i}`, by: 'ann' }, { orderingKey: 'cust_1' }))
            .messageId,
        );
      }
      // No queue yet: the head fails, and the two behind it are not even attempted.
      expect(await t.worker.runOnce()).toMatchObject({ attempted: 1, retried: 1 });
      await channel.assertQueue(name, { durable: false });
      cleanups.push(() => channel.deleteQueue(name));
      t.clock.advance(5_000);
      for (let i = 0; i < 5; i++) await t.worker.runOnce();
      const got = await drain(name);
      expect(got.map((m) => m.properties.messageId)).toEqual(ids);
    },
  );
});
