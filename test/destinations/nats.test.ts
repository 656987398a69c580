/**
 * NATS JetStream destinations against the real server on 127.0.0.1 (NATS_URL): events sent through
 * the outbox (SQLite and PostgreSQL) are stored in a stream with the Standard Webhooks headers and
 * `Nats-Msg-Id` = the webhook id, so a repeated publish (a redelivery) is dropped by the stream's
 * duplicate window; a subject no stream listens on and a server that is not there are failed
 * attempts, retried on the schedule and dead-lettered; an ordering key holds the next message.
 */
import * as nats from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natsDestination } from '../../runtime/deliver/destinations/nats.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { verifyStandardWebhook } from '../../runtime/signing/standard-webhooks.js';
import { LOCAL, outboxFixtures, petContract, virtualClock } from '../sender/helpers.js';
import { missingEnv } from '../support/requires.js';
import { NATS_URL, natsSubjectUrl, unique } from './brokers.js';

const skip = missingEnv('NATS_URL', 'the NATS JetStream destination tests');

describe.skipIf(skip).each(outboxFixtures)('nats: destinations on $name', (fixture) => {
  let nc: nats.NatsConnection;
  let jsm: nats.JetStreamManager;
  const cleanups: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    nc = await nats.connect({ servers: new URL(NATS_URL).host });
    jsm = await nc.jetstreamManager();
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    await nc?.close();
  });

  const setup = async (tag: string, retry = petContract().retry) => {
    const made = await fixture.create(`nats_${tag}`);
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
      destinations: [natsDestination(nats)],
      onError: () => {},
    });
    cleanups.push(() => worker.stop());
    return { ...made, clock, manager, sender, worker };
  };
  const stream = async (subject: string) => {
    const name = unique('stream');
    await jsm.streams.add({ name, subjects: [subject], storage: nats.StorageType.Memory });
    cleanups.push(() => jsm.streams.delete(name));
    return name;
  };
  const stored = async (name: string) => {
    const info = await jsm.streams.info(name);
    const out: nats.StoredMsg[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      out.push(await jsm.streams.getMessage(name, { seq }));
    }
    return out;
  };
  const headersOf = (m: nats.StoredMsg) => {
    const out: Record<string, string> = {};
    for (const [k, v] of m.header) out[k] = v[0] as string;
    return out;
  };

  it.skipIf(fixture.skip)(
    'stores signed events a consumer verifies; a redelivery is deduped by msg id',
    async () => {
      const t = await setup('ok');
      const subject = unique('subj');
      const name = await stream(subject);
      const { secret, endpoint } = await t.manager.register({ url: natsSubjectUrl(subject), events: ['*'] });
      const sent = [];
      for (let i = 0; i < 3; i++)
        sent.push(await t.sender.send('pet.adopted', { petId: `p${i}`, by: 'ann' }));
      expect(await t.worker.runOnce()).toMatchObject({ attempted: 3, succeeded: 3 });
      const got = await stored(name);
      expect(got).toHaveLength(3);
      for (const m of got) {
        const headers = headersOf(m);
        const body = new TextDecoder().decode(m.data);
        const verified = verifyStandardWebhook({ headers, body, secret, now: t.clock.now });
        expect(headers['Nats-Msg-Id']).toBe(verified.id);
        expect(headers['content-type']).toBe('application/json');
      }
      expect(got.map((m) => headersOf(m)['Nats-Msg-Id']).sort()).toEqual(sent.map((s) => s.messageId).sort());
      // Redelivered (a retry after a lost ack looks the same to the stream): confirmed, not stored twice.
      expect(
        await t.manager.redeliver(endpoint.id, { messageId: (sent[0] as { messageId: string }).messageId }),
      ).toBe(1);
      expect(await t.worker.runOnce()).toMatchObject({ attempted: 1, succeeded: 1 });
      expect(await stored(name)).toHaveLength(3);
    },
  );

  it.skipIf(fixture.skip)('no stream on the subject → retried on the schedule → dead letter', async () => {
    const t = await setup('nostream', { kind: 'list', delays: [0, 5] });
    const subject = unique('none');
    const { endpoint } = await t.manager.register({ url: natsSubjectUrl(subject), events: ['*'] });
    await t.manager.register({ url: `nats://127.0.0.1:9?subject=${subject}`, events: ['*'] });
    const { messageId } = await t.sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
    expect(await t.worker.runOnce()).toMatchObject({ attempted: 2, retried: 2 });
    t.clock.advance(5_000);
    expect(await t.worker.runOnce()).toMatchObject({ attempted: 2, dead: 2 });
    const attempts = await t.manager.attempts(endpoint.id);
    expect(attempts.map((a) => a.outcome)).toEqual(['failed', 'failed']);
    // The stream appears: redelivered, stored once.
    const name = await stream(subject);
    expect(await t.manager.redeliver(endpoint.id, { messageId })).toBe(1);
    expect(await t.worker.runOnce()).toMatchObject({ attempted: 1, succeeded: 1 });
    expect((await stored(name)).map((m) => headersOf(m)['Nats-Msg-Id'])).toEqual([messageId]);
  });

  it.skipIf(fixture.skip)(
    'an ordering key holds the next message until the one before is acked',
    async () => {
      const t = await setup('order', { kind: 'list', delays: [0, 5, 300] });
      const subject = unique('order');
      await t.manager.register({ url: natsSubjectUrl(subject), events: ['*'] });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const sent = await t.sender.send('pet.adopted', { petId: `p${i}`, by: 'ann' }, { orderingKey: 'k' });
        ids.push(sent.messageId);
      }
      expect(await t.worker.runOnce()).toMatchObject({ attempted: 1, retried: 1 });
      const name = await stream(subject);
      t.clock.advance(5_000);
      for (let i = 0; i < 5; i++) await t.worker.runOnce();
      expect((await stored(name)).map((m) => headersOf(m)['Nats-Msg-Id'])).toEqual(ids);
    },
  );
});
