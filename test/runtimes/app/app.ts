/**
 * The receiver app every runtime test runs (bundled per runtime by esbuild, with that runtime's export
 * conditions): three generated modules — Petstore (`hmac` signature), Billing (Standard Webhooks) and
 * Keys (Fern's asymmetric Ed25519, verified with the public key) — each behind its route, on the
 * in-memory store. Imports the generated modules' index (which also
 * re-exports their senders), as an app would.
 */
import { memoryStore } from '@gen-webhooks/runtime';
import { createReceiver as billingReceiver } from './gen/billing-openapi30/index.js';
import { createReceiver as keysReceiver } from './gen/keys-openapi31/index.js';
import { createReceiver as petstoreReceiver } from './gen/petstore-openapi/index.js';

export const SECRETS = {
  petstore: 'petstore-runtime-secret',
  billing: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
};

/** The Ed25519 public key (raw, hex) receiver.test.ts signs for; not exported: workerd takes exports as handlers. */
const KEYS_PUBLIC = '423a7290adbe5b666699b3f3247485f51b5782a09dfde2c218301e1242967cbf';

const handled: string[] = [];

export const receivers = {
  '/petstore': petstoreReceiver({
    secret: SECRETS.petstore,
    store: memoryStore(),
    handlers: { 'pet.adopted': (event) => void handled.push(`petstore ${event.type} ${event.data.petId}`) },
  }),
  '/billing': billingReceiver({
    secret: SECRETS.billing,
    store: memoryStore(),
    handlers: { 'invoice.paid': (event) => void handled.push(`billing ${event.type} ${event.data.id}`) },
  }),
  '/keys': keysReceiver({
    publicKey: KEYS_PUBLIC,
    store: memoryStore(),
    handlers: {
      'invoice.paid': (event) => void handled.push(`keys ${event.type} ${event.data.invoiceId}`),
    },
  }),
};

export default {
  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (path === '/handled') return Response.json(handled);
    const receiver = receivers[path as keyof typeof receivers];
    return receiver === undefined ? new Response('not found', { status: 404 }) : receiver.fetch(request);
  },
};
