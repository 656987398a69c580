/**
 * Provider defaults wired into the receiver: Slack (3 s deadline) and Discord default to ack-fast
 * when the store queues durably, with the worker started in-process; Discord's queued events get the
 * empty 204 it expects; with a store that cannot queue durably they stay inline.
 */
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { providerContract, providers } from '../../runtime/presets/index.js';
import { createReceiver } from '../../runtime/receive/index.js';
import { ed25519PrivateKey, rawPublicKey } from '../../runtime/signing/ed25519.js';
import { encodeHex } from '../../runtime/signing/encoding.js';
import { memoryStore, sqliteStore } from '../../runtime/stores/index.js';

const slackSecret = 'slack-signing-secret';
const slackContract = providerContract('slack', {
  app_mention: z.object({ type: z.literal('app_mention'), text: z.string() }),
});

async function slackDelivery(eventId: string) {
  const body = JSON.stringify({
    type: 'event_callback',
    event_id: eventId,
    event_time: 1_732_000_000,
    event: { type: 'app_mention', text: `hi from ${eventId}` },
  });
  const headers = await providers.slack.scheme({ secret: slackSecret }).sign({
    id: eventId,
    timestamp: Math.floor(Date.now() / 1000),
    body,
  });
  return { headers: { 'content-type': 'application/json', ...headers }, body };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('provider default receive mode', () => {
  it('slack on SQLite answers "queued" at once and its in-process worker runs the handler once', async () => {
    const db = new Database(':memory:');
    const effects: string[] = [];
    const receiver = createReceiver(slackContract, {
      secret: slackSecret,
      store: sqliteStore(db, { table: 'presets_default_mode_slack' }),
      handlers: { app_mention: (event) => effects.push(event.data.event.text) },
    });
    const delivery = await slackDelivery('Ev0DEFAULT1');
    const first = await receiver.handle(delivery);
    expect(first.outcome).toBe('queued');
    expect(first.status).toBe(200);
    await until(() => effects.length > 0); // nobody called startWorker(): the default started it
    expect(effects).toEqual(['hi from Ev0DEFAULT1']);
    await receiver.handle(await slackDelivery('Ev0DEFAULT1'));
    await receiver.drain();
    expect(effects).toHaveLength(1);
    await receiver.stop();
    db.close();
  });

  it('slack on a store without a durable queue stays inline', async () => {
    const effects: string[] = [];
    const receiver = createReceiver(slackContract, {
      secret: slackSecret,
      store: memoryStore(),
      handlers: { app_mention: (event) => effects.push(event.data.event.text) },
    });
    const result = await receiver.handle(await slackDelivery('Ev0INLINE'));
    expect(result.outcome).toBe('processed');
    expect(effects).toEqual(['hi from Ev0INLINE']);
  });

  it('ackFast: false wins over the preset default', async () => {
    const db = new Database(':memory:');
    const receiver = createReceiver(slackContract, {
      secret: slackSecret,
      store: sqliteStore(db, { table: 'presets_default_mode_explicit' }),
      ackFast: false,
      handlers: { app_mention: () => undefined },
    });
    expect((await receiver.handle(await slackDelivery('Ev0EXPLICIT'))).outcome).toBe('processed');
    db.close();
  });

  it('discord webhook events queued by default are acknowledged with an empty 204', async () => {
    const seed = new Uint8Array(randomBytes(32));
    const publicKey = encodeHex(rawPublicKey(ed25519PrivateKey(seed)));
    const db = new Database(':memory:');
    const seen: string[] = [];
    const receiver = createReceiver(
      providerContract('discord', { ENTITLEMENT_CREATE: z.object({ id: z.string() }) }),
      {
        secret: publicKey,
        store: sqliteStore(db, { table: 'presets_default_mode_discord' }),
        handlers: { ENTITLEMENT_CREATE: (event) => seen.push(JSON.stringify(event.data)) },
      },
    );
    const body = JSON.stringify({
      version: 1,
      application_id: '42',
      type: 1,
      event: { type: 'ENTITLEMENT_CREATE', timestamp: '2024-10-18T14:42:53.064834', data: { id: 'ent_1' } },
    });
    const headers = await providers.discord
      .scheme({ secret: publicKey, signingKey: seed })
      .sign({ id: 'x', timestamp: Math.floor(Date.now() / 1000), body });
    const result = await receiver.handle({
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    expect(result.outcome).toBe('queued');
    expect(result.status).toBe(204);
    expect(result.body).toBe('');
    await until(() => seen.length > 0);
    expect(seen).toHaveLength(1);
    await receiver.stop();
    db.close();
  });
});
