/**
 * Registering a broker destination: the URL policy applies as to HTTP endpoints (a private address
 * only when allowed, plain `amqp:`/`nats:` only for hosts allowed plaintext, no credentials in an
 * http(s) URL); the credentials are never shown back (manager, management API) and, with
 * `secretKeys`, are stored sealed (SQLite and PostgreSQL) while the worker still publishes with them
 * to the real RabbitMQ; the `***` shown back keeps the stored credentials on an edit.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import amqplib from 'amqplib';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amqpDestination } from '../../runtime/deliver/destinations/amqp.js';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { isWebhookError } from '../../runtime/errors.js';
import { unsafeAllowAnyone } from '../../runtime/manage/authorize.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { createManagementHandler } from '../../runtime/manage/handler.js';
import { LOCAL, outboxFixtures, petContract, tempDir } from '../sender/helpers.js';
import { missingEnv } from '../support/requires.js';
import { AMQP_URL, amqpQueueUrl, unique } from './brokers.js';

const contract = petContract({ kind: 'list', delays: [0] });
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (isWebhookError(error) ? error.code : String(error)),
  );

describe('destination URLs at registration', () => {
  let outbox: Outbox;
  beforeAll(async () => {
    outbox = sqliteOutbox(path.join(tempDir('dest_reg'), 'o.db'));
    await outbox.init();
  });
  afterAll(() => outbox.close());

  it('applies the URL policy: private addresses, plaintext hosts, schemes, http credentials', async () => {
    const strict = createEndpointManager({ outbox, contract, urlPolicy: { allowHttpHosts: ['127.0.0.1'] } });
    expect(
      await codeOf(strict.register({ url: 'amqp://u:p@127.0.0.1:5672/?routingKey=q', events: ['*'] })),
    ).toBe('blocked_address');
    expect(await codeOf(strict.register({ url: 'nats://127.0.0.1:4222?subject=s', events: ['*'] }))).toBe(
      'blocked_address',
    );
    expect(await codeOf(strict.register({ url: 'amqps://u:p@10.0.0.8/?routingKey=q', events: ['*'] }))).toBe(
      'blocked_address',
    );
    const noPlain = createEndpointManager({ outbox, contract, urlPolicy: { allowAddresses: ['127.0.0.1'] } });
    expect(await codeOf(noPlain.register({ url: 'amqp://u:p@127.0.0.1/?routingKey=q', events: ['*'] }))).toBe(
      'insecure_url',
    );
    expect(
      await codeOf(noPlain.register({ url: 'amqps://u:p@127.0.0.1/?routingKey=q', events: ['*'] })),
    ).toBe('resolved');
    const local = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
    expect(await codeOf(local.register({ url: 'sqs://127.0.0.1/q', events: ['*'] }))).toBe('invalid_url');
    expect(await codeOf(local.register({ url: 'http://u:p@127.0.0.1/hook', events: ['*'] }))).toBe(
      'invalid_url',
    );
    const own = createEndpointManager({
      outbox,
      contract,
      urlPolicy: { ...LOCAL, destinationSchemes: ['mem'] },
    });
    expect(await codeOf(own.register({ url: 'mem://127.0.0.1/q', events: ['*'] }))).toBe('resolved');
  });

  it('never shows the credentials back: manager views and the management API', async () => {
    const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
    const url = 'amqp://alice:s3cr%40t@127.0.0.1:5672/vh?exchange=events&routingKey=pet';
    const { endpoint } = await manager.register({ url, events: ['*'] });
    const shown = 'amqp://***@127.0.0.1:5672/vh?exchange=events&routingKey=pet';
    expect(endpoint.url).toBe(shown);
    expect((await manager.get(endpoint.id)).url).toBe(shown);
    expect((await manager.list()).find((e) => e.id === endpoint.id)?.url).toBe(shown);
    const handler = createManagementHandler({
      outbox,
      contract,
      urlPolicy: LOCAL,
      authorize: unsafeAllowAnyone(),
    });
    const listed = await (await handler(new Request('http://x/webhooks'))).text();
    const one = await (await handler(new Request(`http://x/webhooks/${endpoint.id}`))).text();
    for (const text of [listed, one]) {
      expect(text).toContain('amqp://***@127.0.0.1');
      expect(text).not.toContain('alice');
      expect(text).not.toContain('s3cr');
    }
    // An edit that sends back what it was shown keeps the credentials; new ones replace them.
    await manager.update(endpoint.id, { url: shown, description: 'edited' });
    expect((await outbox.getEndpoint(endpoint.id))?.url).toBe(url);
    await manager.update(endpoint.id, {
      url: 'amqp://bob:pw@127.0.0.1:5672/vh?exchange=events&routingKey=pet',
    });
    expect((await outbox.getEndpoint(endpoint.id))?.url).toContain('bob:pw@');
  });
});

describe.skipIf(missingEnv('AMQP_URL', 'the AMQP credentials-at-rest test')).each(outboxFixtures)(
  'destination credentials at rest on $name',
  (fixture) => {
    it.skipIf(fixture.skip)(
      'are sealed with secretKeys, and the worker still publishes with them',
      async () => {
        const made = await fixture.create('dest_rest');
        const secretKeys = [{ id: 'k1', key: randomBytes(32) }];
        const raw = made.raw;
        const outbox =
          fixture.name === 'sqlite'
            ? sqliteOutbox(path.join(raw as string, 'outbox.db'), { secretKeys })
            : postgresOutbox((raw as { pool: pg.Pool }).pool, {
                schema: (raw as { schema: string }).schema,
                secretKeys,
              });
        await outbox.init();
        const connection = await amqplib.connect(AMQP_URL);
        const channel = await connection.createChannel();
        const queue = unique('rest');
        await channel.assertQueue(queue, { durable: false });
        try {
          const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
          const url = amqpQueueUrl(queue);
          const { endpoint } = await manager.register({ url, events: ['*'] });
          const column =
            fixture.name === 'sqlite'
              ? (
                  new Database(path.join(raw as string, 'outbox.db'))
                    .prepare('SELECT url FROM webhook_endpoints WHERE id = ?')
                    .get(endpoint.id) as { url: string }
                ).url
              : (
                  await (raw as { pool: pg.Pool }).pool.query(
                    `SELECT url FROM "${(raw as { schema: string }).schema}".webhook_endpoints WHERE id = $1`,
                    [endpoint.id],
                  )
                ).rows[0].url;
          const password = new URL(AMQP_URL).password;
          expect(column).toMatch(/^amqp:\/\/gwenc\.v1\.k1\.[^@]+@127\.0\.0\.1/);
          expect(column).not.toContain(`:${password}@`);
          expect((await outbox.getEndpoint(endpoint.id))?.url).toBe(url);
          // Without the key the URL is not guessed at.
          const keyless =
            fixture.name === 'sqlite'
              ? sqliteOutbox(path.join(raw as string, 'outbox.db'))
              : postgresOutbox((raw as { pool: pg.Pool }).pool, {
                  schema: (raw as { schema: string }).schema,
                });
          expect(await codeOf(keyless.getEndpoint(endpoint.id))).toBe('invalid_key');
          await createSender(contract, { outbox }).send('pet.adopted', { petId: 'p1', by: 'ann' });
          const worker = createWorker({
            outbox,
            contract,
            urlPolicy: LOCAL,
            destinations: [amqpDestination(amqplib)],
          });
          expect(await worker.runOnce()).toMatchObject({ succeeded: 1 });
          await worker.stop();
          expect(await channel.get(queue, { noAck: true })).not.toBe(false);
          if (fixture.name === 'sqlite') await keyless.close();
        } finally {
          await channel.deleteQueue(queue);
          await connection.close();
          if (fixture.name === 'sqlite') await outbox.close();
          await made.cleanup();
        }
      },
    );
  },
);
