/**
 * The other direction: a sender built on a preset contract (what `gen-webhooks send` and generated
 * senders use) signs deliveries the preset's receiver accepts, selector headers included, over real
 * HTTP on 127.0.0.1. Sending the same message id again is recognised as a duplicate.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Contract, EventMapBase } from '../../runtime/contract.js';
import { createSender } from '../../runtime/deliver/index.js';
import { providerContract } from '../../runtime/presets/index.js';
import { createReceiver } from '../../runtime/receive/index.js';
import { memoryStore } from '../../runtime/stores/index.js';

interface Case {
  readonly name: string;
  readonly contract: Contract<EventMapBase>;
  readonly event: string;
  readonly secret: string;
  readonly payload: unknown;
}

const now = Math.floor(Date.now() / 1000);
const cases: Case[] = [
  {
    name: 'github',
    contract: providerContract('github', {
      'issues.opened': z.object({ action: z.literal('opened'), issue: z.object({ number: z.number() }) }),
    }),
    event: 'issues.opened',
    secret: 'gh-send-secret',
    payload: { action: 'opened', issue: { number: 1 } },
  },
  {
    name: 'stripe',
    contract: providerContract('stripe', {
      'invoice.paid': z.object({ id: z.string(), amount_paid: z.number() }),
    }),
    event: 'invoice.paid',
    secret: 'whsec_send',
    payload: {
      id: 'evt_send_1',
      object: 'event',
      type: 'invoice.paid',
      created: now,
      data: { object: { id: 'in_1', amount_paid: 500 } },
    },
  },
  {
    name: 'shopify',
    contract: providerContract('shopify', {
      'products/update': z.object({ id: z.number(), title: z.string() }),
    }),
    event: 'products/update',
    secret: 'shpss_send',
    payload: { id: 632910392, title: 'IPod Nano - 8GB' },
  },
  {
    name: 'slack',
    contract: providerContract('slack', {
      reaction_added: z.object({ type: z.literal('reaction_added'), reaction: z.string() }),
    }),
    event: 'reaction_added',
    secret: 'slack-send-secret',
    payload: {
      type: 'event_callback',
      event_id: 'Ev0SEND',
      event_time: now,
      event: { type: 'reaction_added', reaction: 'tada' },
    },
  },
  {
    name: 'twilio',
    contract: providerContract('twilio', {
      'task.created': z.object({ EventType: z.literal('task.created'), TaskSid: z.string() }),
    }),
    event: 'task.created',
    secret: 'twilio-send-token',
    payload: { EventType: 'task.created', TaskSid: 'WT1' },
  },
  {
    name: 'svix',
    contract: providerContract('svix', {
      'email.sent': z.object({ type: z.literal('email.sent'), data: z.object({ email_id: z.string() }) }),
    }),
    event: 'email.sent',
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    payload: { type: 'email.sent', data: { email_id: 'e_1' } },
  },
];

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe.each(cases)('$name: preset sender → preset receiver', (c) => {
  it('delivers once; the same message id again is a duplicate', async () => {
    const received: unknown[] = [];
    const receiver = createReceiver(c.contract, {
      secret: c.secret,
      store: memoryStore(),
      handlers: { [c.event]: (event: { data: unknown }) => received.push(event.data) },
    });
    const server = createServer(receiver.node());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/${c.name}?v=1`;
    const sender = createSender(c.contract, {
      urlPolicy: { allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] },
    });
    const first = await sender.sendNow(c.event, c.payload, { url, secret: c.secret, id: `msg_${c.name}_1` });
    const again = await sender.sendNow(c.event, c.payload, { url, secret: c.secret, id: `msg_${c.name}_1` });
    expect(first.delivered, JSON.stringify(first.attempts.map((a) => a.classification))).toBe(true);
    expect(again.delivered).toBe(true);
    expect(received).toEqual([c.payload]);
  });
});
