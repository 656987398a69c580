/**
 * `receiver.consumeJetStream` against a real NATS JetStream: each message (signed body + webhook
 * headers, `Nats-Msg-Id` = webhook id) runs the receive pipeline once; a failed handler is `nak`ed and
 * redelivered (`info.redeliveryCount` is the attempt) until `maxAttempts`; verification failures and
 * exhausted messages go to `deadLetter`, then `term()`.
 */
import { AckPolicy, connect, headers, type JetStreamManager, type NatsConnection, nanos } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ackFastJetStream } from '../../runtime/receive/ack-fast-broker.js';
import { adopted, type Delivery, delivery } from '../receiver/fixtures.js';
import { post } from '../receiver/http.js';
import { missingEnv } from '../support/requires.js';
import { ackFastServers, NATS_URL, petReceiver, sleep, unique, until } from './consume-support.js';

describe.skipIf(missingEnv('NATS_URL', 'the JetStream consumer tests'))('consumeJetStream', () => {
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const streams: string[] = [];

  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL });
    jsm = await nc.jetstreamManager();
  });
  afterAll(async () => {
    for (const s of streams) await jsm.streams.delete(s).catch(() => undefined);
    await nc?.close();
  });

  /** A stream, a durable pull consumer on it, and a publisher of signed deliveries. */
  async function setup() {
    const stream = unique('s');
    const subject = `${stream}.events`;
    await jsm.streams.add({ name: stream, subjects: [subject] });
    streams.push(stream);
    await jsm.consumers.add(stream, {
      durable_name: 'workers',
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(5_000),
    });
    const js = nc.jetstream();
    const consumer = await js.consumers.get(stream, 'workers');
    const publish = (d: Delivery, over: Record<string, string> = {}, msgID = d.headers['webhook-id']) => {
      const h = headers();
      for (const [name, value] of Object.entries({ ...d.headers, ...over })) h.set(name, value);
      return js.publish(subject, new TextEncoder().encode(d.body), {
        headers: h,
        ...(msgID ? { msgID } : {}),
      });
    };
    const pending = async () => {
      const info = await jsm.consumers.info(stream, 'workers');
      return info.num_pending + info.num_ack_pending;
    };
    return { consumer, publish, pending, subject };
  }

  it('handles a valid message once and acks it', async () => {
    const { consumer, publish, pending } = await setup();
    const seen: string[] = [];
    const c = await petReceiver((e) => seen.push(e.data.petId)).consumeJetStream(consumer);
    await publish(delivery('pet.adopted', adopted('rex')));
    await until(async () => seen.length === 1 && (await pending()) === 0);
    await c.stop();
    expect(seen).toEqual(['rex']);
  });

  it('runs a duplicate (same webhook-id) once and acks both copies', async () => {
    const { consumer, publish, pending } = await setup();
    const seen: string[] = [];
    const c = await petReceiver((e) => seen.push(e.id)).consumeJetStream(consumer);
    const d = delivery('pet.adopted', adopted());
    await publish(d);
    // A second copy past the stream's own Nats-Msg-Id dedupe (a redelivery from the sender).
    await publish(d, {}, '');
    await until(async () => seen.length >= 1 && (await pending()) === 0);
    await sleep(200);
    await c.stop();
    expect(seen).toHaveLength(1);
  });

  it('dead-letters a tampered body or signature without calling the handler', async () => {
    const { consumer, publish, pending } = await setup();
    const seen: string[] = [];
    const dead: string[] = [];
    const c = await petReceiver((e) => seen.push(e.id)).consumeJetStream(consumer, {
      deadLetter: (_message, reason) => dead.push(reason),
    });
    const d = delivery('pet.adopted', adopted('rex'));
    await publish({ ...d, body: d.body.replace('rex', 'max') });
    await publish(delivery('pet.adopted', adopted()), {
      'webhook-signature': 'v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
    });
    await until(async () => dead.length === 2 && (await pending()) === 0);
    await c.stop();
    expect(seen).toEqual([]);
    expect(dead).toEqual(['invalid_signature', 'invalid_signature']);
  });

  it('redelivers a failed handler and succeeds on attempt 2', async () => {
    const { consumer, publish, pending } = await setup();
    let calls = 0;
    const c = await petReceiver(() => {
      calls += 1;
      if (calls === 1) throw new Error('flaky');
    }).consumeJetStream(consumer, { maxAttempts: 3, retryDelayMs: () => 50 });
    await publish(delivery('pet.adopted', adopted()));
    await until(async () => calls === 2 && (await pending()) === 0);
    await sleep(200);
    await c.stop();
    expect(calls).toBe(2);
  });

  it('dead-letters after maxAttempts handler failures', async () => {
    const { consumer, publish, pending } = await setup();
    let calls = 0;
    const dead: string[] = [];
    const c = await petReceiver(() => {
      calls += 1;
      throw new Error('always');
    }).consumeJetStream(consumer, {
      maxAttempts: 3,
      retryDelayMs: () => 50,
      deadLetter: (_m, reason) => dead.push(reason),
    });
    await publish(delivery('pet.adopted', adopted()));
    await until(async () => dead.length === 1 && (await pending()) === 0);
    await sleep(300);
    await c.stop();
    expect(calls).toBe(3);
    expect(dead).toEqual(['handler_failed']);
  });

  it('never runs more than `prefetch` handlers at once', async () => {
    const { consumer, publish } = await setup();
    let running = 0;
    let peak = 0;
    let done = 0;
    const c = await petReceiver(async () => {
      running += 1;
      peak = Math.max(peak, running);
      await sleep(50);
      running -= 1;
      done += 1;
    }).consumeJetStream(consumer, { prefetch: 2 });
    for (let i = 0; i < 8; i++) await publish(delivery('pet.adopted', adopted(`p${i}`)));
    await until(() => done === 8);
    await c.stop();
    expect(peak).toBe(2);
  });

  it('ack-fast: HTTP receivers publish to the stream after its ack; a consumer runs each once', async () => {
    const { consumer, subject, pending } = await setup();
    const servers = await ackFastServers(() => ackFastJetStream(nc.jetstream(), subject, headers));
    const seen: string[] = [];
    const c = await petReceiver((e) => seen.push(e.data.petId)).consumeJetStream(consumer);
    const sent = Array.from({ length: 6 }, (_, i) => delivery('pet.adopted', adopted(`p${i}`)));
    for (const [i, d] of sent.entries()) {
      const answer = await post(servers[i % 2]!.url, d);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ status: 'queued' });
    }
    expect((await post(servers[1]!.url, sent[0]!)).status).toBe(200);
    await until(async () => seen.length === 6 && (await pending()) === 0);
    await sleep(200);
    await c.stop();
    for (const s of servers) await s.close();
    expect(seen.sort()).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
  });
});
