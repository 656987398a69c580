/**
 * Exactly-once per provider: the same signed delivery posted 10 times to a receiver on a real HTTP
 * server (127.0.0.1, port 0) runs the handler once and answers the 9 repeats 200 (duplicate).
 * Slack runs in ack-fast mode (its default) on a SQLite store and queue.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Contract, EventMapBase } from '../../runtime/contract.js';
import {
  type PresetName,
  type PresetSchemeOptions,
  providerContract,
  providers,
} from '../../runtime/presets/index.js';
import { ackFastQueue, createReceiver } from '../../runtime/receive/index.js';
import { ed25519PrivateKey, rawPublicKey } from '../../runtime/signing/ed25519.js';
import { encodeHex } from '../../runtime/signing/encoding.js';
import { memoryStore, sqliteStore } from '../../runtime/stores/index.js';

const seed = new Uint8Array(randomBytes(32));

interface Case {
  readonly name: PresetName;
  readonly contract: Contract<EventMapBase>;
  readonly event: string;
  readonly sign: PresetSchemeOptions;
  readonly verify: PresetSchemeOptions;
  readonly body: string;
  readonly headers: Record<string, string>;
  readonly path?: string;
}

const cases: Case[] = [
  {
    name: 'stripe',
    contract: providerContract('stripe', {
      'payment_intent.succeeded': z.object({ id: z.string(), amount: z.number() }),
    }),
    event: 'payment_intent.succeeded',
    sign: { secret: 'whsec_replay' },
    verify: { secret: 'whsec_replay' },
    body: JSON.stringify({
      id: 'evt_3Q',
      object: 'event',
      created: 1_732_000_000,
      type: 'payment_intent.succeeded',
      data: { object: { id: 'pi_1', amount: 2000 } },
    }),
    headers: { 'content-type': 'application/json' },
  },
  {
    name: 'github',
    contract: providerContract('github', {
      'issues.opened': z.object({ action: z.literal('opened'), issue: z.object({ number: z.number() }) }),
    }),
    event: 'issues.opened',
    sign: { secret: 'gh-replay' },
    verify: { secret: 'gh-replay' },
    body: JSON.stringify({ action: 'opened', issue: { number: 7 } }),
    headers: { 'content-type': 'application/json', 'x-github-event': 'issues' },
  },
  {
    name: 'shopify',
    contract: providerContract('shopify', { 'orders/create': z.object({ id: z.number() }) }),
    event: 'orders/create',
    sign: { secret: 'shpss_replay' },
    verify: { secret: 'shpss_replay' },
    body: JSON.stringify({ id: 820982911946154500 }),
    headers: { 'content-type': 'application/json', 'x-shopify-topic': 'orders/create' },
  },
  {
    name: 'twilio',
    contract: providerContract('twilio', {
      onMessageAdded: z.object({ EventType: z.literal('onMessageAdded'), Body: z.string() }),
    }),
    event: 'onMessageAdded',
    sign: { secret: 'twilio-token' },
    verify: { secret: 'twilio-token' },
    body: 'EventType=onMessageAdded&ConversationSid=CH1&MessageSid=IM1&Body=hello+there',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    path: '/twilio/conversations?tenant=1',
  },
  {
    name: 'discord',
    // Webhook events have no id: a retry repeats the same body, whose hash is the dedupe key.
    contract: providerContract('discord', {
      APPLICATION_AUTHORIZED: z.object({ user: z.object({ id: z.string() }), scopes: z.array(z.string()) }),
    }),
    event: 'APPLICATION_AUTHORIZED',
    sign: { secret: encodeHex(rawPublicKey(ed25519PrivateKey(seed))), signingKey: seed },
    verify: { secret: encodeHex(rawPublicKey(ed25519PrivateKey(seed))) },
    body: JSON.stringify({
      version: 1,
      application_id: '1180000000000000000',
      type: 1,
      event: {
        type: 'APPLICATION_AUTHORIZED',
        timestamp: '2026-11-30T11:00:00.000000+00:00',
        data: { user: { id: '7' }, scopes: ['applications.commands'] },
      },
    }),
    headers: { 'content-type': 'application/json' },
  },
  {
    name: 'svix',
    contract: providerContract('svix', {
      'invoice.paid': z.object({ type: z.literal('invoice.paid'), data: z.object({ invoice: z.string() }) }),
    }),
    event: 'invoice.paid',
    sign: { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    verify: { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    body: JSON.stringify({
      type: 'invoice.paid',
      timestamp: '2026-11-30T11:00:00Z',
      data: { invoice: 'in_1' },
    }),
    headers: { 'content-type': 'application/json' },
  },
];

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function post(url: string, headers: Record<string, string>, body: string) {
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe.each(cases)('$name: the same delivery 10 times', (c) => {
  it('runs the handler once and answers 9 duplicates 200', async () => {
    const effects: unknown[] = [];
    const receiver = createReceiver(c.contract, {
      scheme: providers[c.name].scheme(c.verify),
      store: memoryStore(),
      handlers: { [c.event]: (event: { id: string; data: unknown }) => effects.push(event) },
    });
    const base = await listen(receiver.node());
    const url = `${base}${c.path ?? '/webhooks'}`;
    const now = Math.floor(Date.now() / 1000);
    const signed = await providers[c.name]
      .scheme(c.sign)
      .sign({ id: `delivery-${c.name}`, timestamp: now, body: c.body, url });
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await post(url, { ...c.headers, ...signed }, c.body));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.map((a) => a.body['status'])).toEqual([
      'processed',
      ...Array(9).fill('already processed'),
    ]);
    expect(effects).toHaveLength(1);
  });
});

describe('slack: ack-fast on SQLite, the same event 10 times', () => {
  it('queues, processes once, and treats every repeat as a duplicate', async () => {
    const db = new Database(':memory:');
    const store = sqliteStore(db, { table: 'presets_replay_slack' });
    const effects: string[] = [];
    const contract = providerContract('slack', {
      app_mention: z.object({ type: z.literal('app_mention'), text: z.string() }),
    });
    const receiver = createReceiver(contract, {
      secret: 'slack-signing-secret',
      store,
      ...(providers.slack.defaultMode === 'ack-fast' ? { ackFast: ackFastQueue() } : {}),
      handlers: { app_mention: (event) => effects.push(event.data.event.text) },
    });
    const url = `${await listen(receiver.node())}/slack/events`;
    const body = JSON.stringify({
      type: 'event_callback',
      event_id: 'Ev0REPLAY',
      event_time: 1_732_000_000,
      event: { type: 'app_mention', text: '<@U1> hi' },
    });
    const scheme = providers.slack.scheme({ secret: 'slack-signing-secret' });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      // Slack re-signs each retry (fresh timestamp) and keeps the event_id.
      const signed = await scheme.sign({ id: 'x', timestamp: Math.floor(Date.now() / 1000) - attempt, body });
      const retry: Record<string, string> =
        attempt === 0 ? {} : { 'x-slack-retry-num': String(attempt), 'x-slack-retry-reason': 'http_timeout' };
      statuses.push(
        (await post(url, { 'content-type': 'application/json', ...signed, ...retry }, body)).status,
      );
      if (attempt === 4) await receiver.drain();
    }
    await receiver.drain();
    expect(statuses).toEqual(Array(10).fill(200));
    expect(effects).toEqual(['<@U1> hi']);
    expect(await store.queue.counts()).toEqual({ pending: 0, failed: 0 });
    await receiver.stop();
    db.close();
  });
});
