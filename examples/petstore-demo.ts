/**
 * End-to-end demo on 127.0.0.1: the generated Petstore receiver (node:http + SQLite dedupe store)
 * and the generated sender, which signs each event with HMAC-SHA256 and POSTs it. Run it with
 * `npm run demo` (generates ../generated first); exits 0 when every event arrived exactly once.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sqliteStore } from '@gen-webhooks/runtime';
import { fixtures } from '../generated/petstore-openapi/fixtures.js';
import { createReceiver, createSender, type EventName } from '../generated/petstore-openapi/index.js';

const secret = 'petstore-demo-secret';
const received: string[] = [];
const log = (type: EventName, line: string) => {
  received.push(type);
  console.log(`  ← ${type.padEnd(19)} ${line}`);
};

// In-memory SQLite: the same store a production receiver would use with a file path.
const store = sqliteStore(':memory:');
const receiver = createReceiver({
  secret,
  store,
  // Every event of the contract must have a handler (a compile error otherwise).
  exhaustive: true,
  handlers: {
    'pet.adopted': ({ data }) =>
      log('pet.adopted', `pet ${data.petId} adopted by ${data.userId}, fee ${money(data.adoptionFee)}`),
    'pet.status_changed': ({ data }) =>
      log('pet.status_changed', `pet ${data.petId}: ${data.previousStatus} → ${data.status}`),
    'order.created': ({ data }) =>
      log('order.created', `order ${data.id}: ${data.items.length} item(s), ${money(data.total)}`),
    'order.completed': ({ data }) =>
      log('order.completed', `order ${data.orderId} completed ${data.completedAt}`),
    'payment.succeeded': ({ data }) =>
      log('payment.succeeded', `payment ${data.paymentId} of ${money(data.amount)} by ${data.method.type}`),
    'payment.failed': ({ data }) =>
      log('payment.failed', `payment ${data.paymentId} failed: ${data.error.code} (attempt ${data.attempt})`),
  },
});

function money(m: { amount: number; currency: string }): string {
  return `${(m.amount / 100).toFixed(2)} ${m.currency}`;
}

const server = createServer(receiver.node());
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address() as AddressInfo;
const url = `http://127.0.0.1:${port}/webhooks/petstore`;
console.log(`Receiver listening on ${url}`);

// The SSRF guard refuses loopback and plain http unless allowed: this is a local demo.
const sender = createSender({ urlPolicy: { allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] } });
const events = Object.keys(fixtures) as EventName[];
let failures = 0;
for (const type of events) {
  // `sendNow` checks the payload against the event's type at compile time and its schema at run time.
  const result = await sender.sendNow(type, fixtures[type], { url, secret });
  const last = result.attempts.at(-1);
  console.log(
    `→ ${type.padEnd(19)} ${result.messageId} ${result.delivered ? 'delivered' : 'FAILED'} (HTTP ${last?.status ?? '-'})`,
  );
  if (!result.delivered) failures++;
}

// Redelivering a message (same id) is acknowledged but not handled twice.
const first = events[0] as EventName;
const again = await sender.sendNow(first, fixtures[first], { url, secret, id: 'msg_demo_duplicate' });
const duplicate = await sender.sendNow(first, fixtures[first], { url, secret, id: 'msg_demo_duplicate' });
console.log(
  `→ ${first} sent twice with one id: ${again.delivered && duplicate.delivered ? 'both acknowledged' : 'FAILED'}`,
);

server.close();
await store.close();
const expected = events.length + 1;
const ok = failures === 0 && received.length === expected && new Set(received).size === events.length;
console.log(
  ok ? `\nOK: ${received.length} deliveries handled for ${events.length} event types.` : '\nFAILED',
);
process.exit(ok ? 0 : 1);
