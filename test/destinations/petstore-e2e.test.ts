/**
 * Broker destinations end to end from examples/petstore-provider (its one command, as a child killed
 * with SIGKILL at the end): a customer opens the portal from a link, registers an `amqp://` queue and
 * a `nats://` JetStream subject there, and consumes the events with the generated Petstore receiver
 * (`consumeAmqp` / `consumeJetStream`, SQLite dedupe). An adoption's two events are handled once per
 * destination; a redelivery reaches the queue again and is deduplicated, not handled twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import amqplib from 'amqplib';
import * as nats from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import { eventually, PortalClient, type PortalFixture } from '../portal/helpers.js';
import { tempDir } from '../sender/helpers.js';
import { type PetstoreExample, startPetstoreExample } from '../support/petstore-example.js';
import { missingEnv } from '../support/requires.js';
import { repoRoot } from '../tools/helpers.js';
import { AMQP_URL, amqpQueueUrl, NATS_URL, natsSubjectUrl, unique } from './brokers.js';

const P = '/webhooks/portal';
const skip = missingEnv('AMQP_URL', 'the Petstore broker destination test');

interface Handled {
  readonly type: string;
  readonly id: string;
}

describe.skipIf(skip)('examples/petstore-provider with broker destinations', () => {
  let example: PetstoreExample | undefined;
  let provider = '';
  let dir = '';
  const cleanups: Array<() => Promise<unknown>> = [];

  const acme = async (method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${provider}${pathname}`, {
      method,
      headers: { authorization: 'Bearer acme-demo-key', 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as never };
  };

  /** Registers `url` through the portal as tenant acme; answers the endpoint id and its secret. */
  const registerInPortal = async (url: string) => {
    const { body } = await acme('POST', '/portal-links');
    const client = new PortalClient({ url: provider } as PortalFixture);
    expect((await client.open((body as { url: string }).url)).status).toBe(200);
    const created = await client.post(`${P}/endpoints`, { _csrf: await client.csrf(), url, events: ['*'] });
    const page = await created.text();
    expect(created.status, page).toBe(201);
    const secret = /id="secret" class="secret" readonly value="([^"&]+)"/.exec(page)?.[1] as string;
    expect(secret).toBeDefined();
    const listed = (await acme('GET', '/webhooks')).body as { data: { id: string; url: string }[] };
    const endpoint = listed.data.find((e) => e.url.startsWith(url.slice(0, url.indexOf('://') + 3)));
    // The broker credentials are never shown back.
    expect(JSON.stringify(listed)).not.toContain('guest:guest');
    return { id: endpoint?.id as string, secret };
  };

  /** The generated receiver (imported once the example has generated it). */
  const receiverFor = async (secret: string, handled: Handled[]) => {
    const generated = path.join(repoRoot, 'generated/petstore-openapi/index.js');
    const { createReceiver } = (await import(
      generated
    )) as typeof import('../../generated/petstore-openapi/index.js');
    return createReceiver({
      secret,
      store: sqliteStore(path.join(dir, `dedupe-${handled.length}-${Math.random()}.db`)),
      handlers: {
        'pet.status_changed': ({ id, type }) => void handled.push({ id, type }),
        'pet.adopted': ({ id, type }) => void handled.push({ id, type }),
      },
    });
  };

  beforeAll(async () => {
    dir = tempDir('petstore-brokers');
    example = await startPetstoreExample(dir);
    provider = example.printed(/^Petstore provider +(\S+)/m) as string;
    expect(example.output).toMatch(/^Destinations +https:, amqp:, amqps:, nats:$/m);
  }, 90_000);
  afterAll(async () => {
    example?.child.kill('SIGKILL');
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a queue registered in the portal gets an adoption’s events, each handled once', async () => {
    const connection = await amqplib.connect(AMQP_URL);
    cleanups.push(() => connection.close());
    const channel = await connection.createChannel();
    const queue = unique('petstore');
    await channel.assertQueue(queue, { durable: true });
    cleanups.push(() => channel.deleteQueue(queue));
    const { id, secret } = await registerInPortal(amqpQueueUrl(queue));

    const handled: Handled[] = [];
    const consumption = await (await receiverFor(secret, handled)).consumeAmqp(channel, queue);
    cleanups.push(() => consumption.stop());
    const adoption = await acme('POST', '/pets/1/adopt', {});
    expect(adoption.status).toBe(200);
    const { messages } = adoption.body as { messages: string[] };
    await eventually(async () => (handled.length >= 2 ? true : undefined), 20_000);
    expect(handled).toEqual([
      { type: 'pet.status_changed', id: messages[0] },
      { type: 'pet.adopted', id: messages[1] },
    ]);

    // A redelivery is published again; the consumer acks it as a duplicate without handling it.
    const redelivered = await acme('POST', `/webhooks/${id}/redeliver`, { messageId: messages[1] });
    expect(redelivered).toEqual({ status: 202, body: { redelivered: 1 } });
    await eventually(async () => {
      const { data } = (await acme('GET', `/webhooks/${id}/deliveries`)).body as { data: unknown[] };
      return data.length >= 3 ? true : undefined;
    }, 20_000);
    await eventually(async () => ((await channel.checkQueue(queue)).messageCount === 0 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(handled).toHaveLength(2);
  }, 60_000);

  it('a JetStream subject registered in the portal gets an adoption’s events, each handled once', async () => {
    const nc = await nats.connect({ servers: new URL(NATS_URL).host });
    cleanups.push(() => nc.close());
    const jsm = await nc.jetstreamManager();
    const stream = unique('petstore').toUpperCase();
    await jsm.streams.add({ name: stream, subjects: [`${stream}.events`], storage: nats.StorageType.Memory });
    cleanups.push(() => jsm.streams.delete(stream));
    await jsm.consumers.add(stream, { durable_name: 'customer', ack_policy: nats.AckPolicy.Explicit });
    const { secret } = await registerInPortal(natsSubjectUrl(`${stream}.events`));

    const handled: Handled[] = [];
    const consumer = await nc.jetstream().consumers.get(stream, 'customer');
    const consumption = await (await receiverFor(secret, handled)).consumeJetStream(consumer);
    cleanups.push(() => consumption.stop());
    const adoption = await acme('POST', '/pets/2/adopt', {});
    expect(adoption.status).toBe(200);
    const { messages } = adoption.body as { messages: string[] };
    await eventually(
      async () => (handled.filter((h) => messages.includes(h.id)).length >= 2 ? true : undefined),
      20_000,
    );
    expect(handled.filter((h) => messages.includes(h.id))).toEqual([
      { type: 'pet.status_changed', id: messages[0] },
      { type: 'pet.adopted', id: messages[1] },
    ]);
    // The JetStream message id is the webhook id.
    const last = await jsm.streams.getMessage(stream, { last_by_subj: `${stream}.events` });
    expect(last.header.get('Nats-Msg-Id')).toBe(messages[1]);
  }, 60_000);
});
