/**
 * For every preset and random payload, secret, id and timestamp: the delivery `testDelivery` builds
 * is accepted by that preset's receiver (verify → parse → dispatch to the intended event), and the
 * same delivery with one byte of its body changed is rejected. Four presets sign no body (Graph's
 * clientState, Event Grid's `?code=`, Okta's shared secret header, Mailgun's timestamp + token): for
 * them one byte of the credential changes instead.
 */
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PresetName, StandardSchemaV1 } from '../contract.js';
import { providerContract } from '../presets/provider-contract.js';
import type { PlaidKey } from '../presets/types.js';
import { createReceiver } from '../receive/receiver-node.js';
import { memoryStore } from '../stores/memory.js';
import { testDelivery } from './test-delivery-node.js';
import type { TestDelivery, TestDeliveryOptions } from './types.js';

const anything: StandardSchemaV1 = {
  '~standard': { version: 1, vendor: 'test', validate: (value) => ({ value }) },
};

const ed = generateKeyPairSync('ed25519');
const edSeed = new Uint8Array(ed.privateKey.export({ format: 'der', type: 'pkcs8' })).slice(-32);
const edPublic = Buffer.from(ed.publicKey.export({ format: 'der', type: 'spki' }))
  .subarray(-32)
  .toString('hex');
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const ecPkcs8 = ec.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const ecSpki = ec.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
const ecJwk = ec.publicKey.export({ format: 'jwk' }) as PlaidKey;

/** One event per preset, spelled as the preset's contracts name it. */
const EVENTS: Record<PresetName, string> = {
  stripe: 'payment_intent.succeeded',
  github: 'issues.opened',
  shopify: 'orders/create',
  slack: 'reaction_added',
  twilio: 'task.created',
  discord: 'APPLICATION_AUTHORIZED',
  svix: 'email.sent',
  zoom: 'meeting.started',
  twitch: 'channel.follow',
  meta: 'page',
  'microsoft-graph': 'created',
  'azure-event-grid': 'Microsoft.Storage.BlobCreated',
  square: 'payment.created',
  paddle: 'transaction.completed',
  'lemon-squeezy': 'order_created',
  linear: 'Issue',
  intercom: 'conversation.user.created',
  hubspot: 'contact.creation',
  mailgun: 'delivered',
  sendgrid: 'processed',
  plaid: 'TRANSACTIONS',
  okta: 'user.lifecycle.create',
};

const KEY_PAIRS: Partial<Record<PresetName, { privateKey: string | Uint8Array; publicKey: unknown }>> = {
  discord: { privateKey: edSeed, publicKey: edPublic },
  sendgrid: { privateKey: ecPkcs8, publicKey: ecSpki },
  plaid: { privateKey: ecPkcs8, publicKey: ecJwk },
};

const URL_ = 'http://127.0.0.1:3000/hooks?tenant=a';
const presets = Object.keys(EVENTS) as PresetName[];
const secretArb = fc.stringMatching(/^[A-Za-z0-9_-]{8,40}$/);
// Svix secrets are `whsec_` + base64 key bytes.
const svixSecretArb = fc
  .uint8Array({ minLength: 16, maxLength: 32 })
  .map((key) => `whsec_${Buffer.from(key).toString('base64')}`);
const payloadArb = fc.dictionary(
  fc
    .stringMatching(/^[a-z][a-z_]{0,10}$/)
    .filter(
      (key) =>
        ![
          'type',
          'event',
          'id',
          'value',
          'data',
          'signature',
          'object',
          'topic',
          'meta',
          'subscription',
        ].includes(key),
    ),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 5 },
);

function receiverFor(preset: PresetName, secret: string, seen: string[]) {
  const event = EVENTS[preset];
  const pair = KEY_PAIRS[preset];
  const contract = providerContract(preset, { [event]: anything });
  return createReceiver(contract, {
    secret: pair === undefined ? secret : preset === 'plaid' ? 'unused' : (pair.publicKey as string),
    ...(preset === 'plaid' ? { preset: { getKey: () => ecJwk } } : {}),
    store: memoryStore(),
    ackFast: false,
    onUnknown: (unknown: { type: string }) => {
      seen.push(`unknown:${unknown.type}`);
    },
    handlers: { [event]: (received: { type: string }) => seen.push(received.type) },
  } as never);
}

function optionsFor(preset: PresetName, secret: string, id: string, timestamp: number): TestDeliveryOptions {
  const pair = KEY_PAIRS[preset];
  const common = { id, timestamp, url: URL_ };
  return pair === undefined ? { ...common, secret } : ({ ...common, ...pair } as TestDeliveryOptions);
}

describe.each(presets)('testDelivery(%s, …)', (preset) => {
  it('is accepted and dispatched to its event; one changed body byte is rejected', async () => {
    const now = Math.floor(Date.now() / 1000);
    await fc.assert(
      fc.asyncProperty(
        payloadArb,
        preset === 'svix' ? svixSecretArb : secretArb,
        fc.stringMatching(/^[A-Za-z0-9_]{4,30}$/),
        // Within every preset's replay window (Paddle's is 5 s).
        fc.integer({ min: -4, max: 4 }),
        fc.nat(),
        async (payload, secret, id, skew, at) => {
          const seen: string[] = [];
          const receiver = receiverFor(preset, secret, seen);
          const delivery = await testDelivery(
            preset,
            EVENTS[preset],
            payload,
            optionsFor(preset, secret, id, now + skew),
          );
          const response = await receiver.fetch(delivery.request());
          expect(response.status, await response.clone().text()).toBeLessThan(300);
          expect(seen).toEqual([EVENTS[preset]]);

          const changed = tamper(preset, delivery, secret, at);
          const rejected = await receiverFor(preset, secret, []).fetch(changed);
          expect(rejected.status, await rejected.text()).toBeGreaterThanOrEqual(400);
        },
      ),
      { numRuns: 25 },
    );
  });
});

/** Flips one bit of one character of `text` between `from` and `to` (a printable ASCII result). */
function flip(text: string, from: number, to: number, at: number): string {
  const index = from + (at % (to - from));
  const code = text.charCodeAt(index);
  return (
    text.slice(0, index) + String.fromCharCode(code ^ (code === 0x7e ? 0x02 : 0x01)) + text.slice(index + 1)
  );
}

/** The delivery with one byte of what the preset authenticates changed. */
function tamper(preset: PresetName, delivery: TestDelivery, secret: string, at: number): Request {
  let { body, url } = delivery;
  const headers = { ...delivery.headers };
  if (preset === 'okta') {
    headers.authorization = flip(secret, 0, secret.length, at);
  } else if (preset === 'azure-event-grid') {
    const start = url.indexOf('code=') + 5;
    url = flip(url, start, start + secret.length, at);
  } else if (preset === 'microsoft-graph' || preset === 'mailgun') {
    const credential =
      preset === 'mailgun'
        ? (JSON.parse(body) as { signature: { signature: string } }).signature.signature
        : secret;
    const start = body.indexOf(JSON.stringify(credential)) + 1;
    body = flip(body, start, start + credential.length, at);
  } else {
    const bytes = new TextEncoder().encode(body);
    const index = at % bytes.length;
    bytes[index] = (bytes[index] ?? 0) ^ 0x01;
    return new Request(url, { method: 'POST', headers, body: bytes });
  }
  return new Request(url, { method: 'POST', headers, body });
}
