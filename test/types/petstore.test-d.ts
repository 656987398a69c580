/**
 * Compile-only type tests of the generated Petstore module (the golden copy, so this compiles on a
 * fresh checkout). Checked by test/generate-types.test.ts and by `npm run typecheck`; every
 * `@ts-expect-error` must be needed, so each one proves a wrong use is rejected.
 */

import { type StandardSchemaV1, sqliteStore } from '@gen-webhooks/runtime';
import Database from 'better-sqlite3';
import { fixtures } from '../golden/petstore-openapi/fixtures.js';
import {
  createReceiver,
  createSender,
  type EventName,
  type Events,
  eventSchemas,
  type Order,
  PaymentFailedPayloadSchema,
  type PetAdoptedPayload,
  type PetStatusChangedPayload,
} from '../golden/petstore-openapi/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(_proof?: T): void => {};

assertType<
  Equal<
    EventName,
    | 'order.completed'
    | 'order.created'
    | 'payment.failed'
    | 'payment.succeeded'
    | 'pet.adopted'
    | 'pet.status_changed'
  >
>();
assertType<Equal<Events['order.created'], Order>>();
assertType<Equal<(typeof fixtures)['pet.adopted'], PetAdoptedPayload>>();

const target = { url: 'https://hooks.example/petstore', secret: 'whsec_test' };
const sender = createSender();

// The right payload for the event compiles.
void sender.sendNow('pet.adopted', fixtures['pet.adopted'], target);
void sender.send('order.created', fixtures['order.created']);

// @ts-expect-error an order is not a pet.adopted payload
void sender.sendNow('pet.adopted', fixtures['order.created'], target);

// @ts-expect-error unknown event name
void sender.sendNow('pet.vanished', { petId: 1 }, target);

// @ts-expect-error a required field (adoptionFee) is missing
void sender.send('pet.adopted', { petId: 1, userId: 'u', orderId: 'ord_12345678', adoptionDate: 'x' });

// Handlers receive the narrowed payload type and the literal event name.
createReceiver({
  secret: 'whsec_test',
  dedupe: false,
  handlers: {
    'pet.adopted': (event) => {
      assertType<Equal<typeof event.data, PetAdoptedPayload>>();
      assertType<Equal<typeof event.type, 'pet.adopted'>>();
      const fee: number = event.data.adoptionFee.amount;
      // @ts-expect-error pet.adopted payloads have no `status`
      void event.data.status;
      return fee;
    },
    'pet.status_changed': (event) => {
      assertType<Equal<typeof event.data, PetStatusChangedPayload>>();
      // @ts-expect-error `status` is a closed set of strings
      const unknownStatus: typeof event.data.status = 'lost';
      return unknownStatus;
    },
  },
});

// Exhaustive mode: every event needs a handler.
// @ts-expect-error handlers for four events are missing
createReceiver({
  secret: 'whsec_test',
  dedupe: false,
  exhaustive: true,
  handlers: {
    'pet.adopted': () => undefined,
    'pet.status_changed': () => undefined,
  },
});

createReceiver({
  secret: 'whsec_test',
  dedupe: false,
  exhaustive: true,
  handlers: {
    'order.completed': () => undefined,
    'order.created': () => undefined,
    'payment.failed': (event) => event.data.error.code,
    'payment.succeeded': (event) => event.data.method.type,
    'pet.adopted': () => undefined,
    'pet.status_changed': () => undefined,
  },
});

// Transactional mode: handlers get the store's transaction handle (better-sqlite3's Database here).
const db = new Database(':memory:');
createReceiver({
  secret: 'whsec_test',
  store: sqliteStore(db),
  transactional: true,
  handlers: {
    'pet.adopted': (event) => {
      assertType<Equal<typeof event.tx, Database.Database>>();
      event.tx.prepare('INSERT INTO adoptions (pet) VALUES (?)').run(event.data.petId);
    },
  },
});
// Without it there is no transaction to hand over.
createReceiver({
  secret: 'whsec_test',
  store: sqliteStore(db),
  handlers: {
    'pet.adopted': (event) => {
      assertType<Equal<typeof event.tx, undefined>>();
    },
  },
});
createReceiver({
  secret: 'whsec_test',
  dedupe: false,
  // @ts-expect-error transactional mode needs a store to run the handler's transaction
  transactional: true,
  handlers: {},
});

// A handler for an event that does not exist is rejected.
createReceiver({
  secret: 'whsec_test',
  dedupe: false,
  handlers: {
    // @ts-expect-error not an event of this contract
    'pet.vanished': () => undefined,
  },
});

// The schemas are typed against the interfaces: zod through the named consts, Standard Schema
// through the event map (what the runtime takes; no zod types to instantiate per event).
const parsed = PaymentFailedPayloadSchema.parse(fixtures['payment.failed']);
assertType<Equal<typeof parsed, Events['payment.failed']>>();
assertType<
  Equal<(typeof eventSchemas)['payment.failed'], StandardSchemaV1<unknown, Events['payment.failed']>>
>();
// @ts-expect-error the event map is Standard Schema only; zod's API is on the named consts
eventSchemas['payment.failed'].parse(fixtures['payment.failed']);
