/**
 * Compile-only tests of the receiver options, never executed: `types.test.ts` compiles this file
 * and fails on any diagnostic (an unneeded `@ts-expect-error` is one), and checks that each
 * `// @ts-expect-error TS<code> …` line, once removed, reports that code on the line below it — so
 * a directive cannot pass on an unrelated error. `npm run typecheck` checks it as well.
 */
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { expectTypeOf } from 'vitest';
import {
  type PetAdopted,
  type PetListed,
  type PetstoreEvents,
  petstore,
  SECRET,
} from '../../test/receiver/fixtures.js';
import { memoryStore } from '../stores/memory.js';
import type { PostgresStore, PostgresTxOf } from '../stores/postgres.js';
import type { SqliteStore } from '../stores/sqlite.js';
import { createReceiver } from './receiver-web.js';
import type { Receiver, UnknownEvent } from './types.js';

// What sqliteStore(db) and postgresStore(pool) return for the drivers' own instances.
declare const sqlite: SqliteStore<Database.Database>;
declare const postgres: PostgresStore<PostgresTxOf<pg.Pool>>;
declare const postgresClient: PostgresStore<PostgresTxOf<pg.Client>>;
const store = memoryStore();

// Each handler is typed by its event: payload, name, no tx outside transactional mode.
const typed = createReceiver(petstore, {
  secret: SECRET,
  store,
  handlers: {
    'pet.adopted': (event) => {
      expectTypeOf(event.data).toEqualTypeOf<PetAdopted>();
      expectTypeOf(event.type).toEqualTypeOf<'pet.adopted'>();
      expectTypeOf(event.tx).toEqualTypeOf<undefined>();
      expectTypeOf(event.timestamp).toEqualTypeOf<Date | undefined>();
      expectTypeOf(event.headers).toEqualTypeOf<Readonly<Record<string, string>>>();
    },
    'pet.listed': (event) => {
      expectTypeOf(event.data).toEqualTypeOf<PetListed>();
      // @ts-expect-error TS2339 `'adopter' does not exist on type 'PetListed'`
      void event.data.adopter;
    },
  },
});
expectTypeOf(typed).toEqualTypeOf<Receiver<PetstoreEvents, undefined>>();

// exhaustive: true makes a missing handler a compile error; partial handlers are fine without it.
// @ts-expect-error TS2345 `Property '"pet.listed"' is missing` (exhaustive)
createReceiver(petstore, { secret: SECRET, store, exhaustive: true, handlers: { 'pet.adopted': () => {} } });
createReceiver(petstore, {
  secret: SECRET,
  store,
  exhaustive: true,
  handlers: { 'pet.adopted': () => {}, 'pet.listed': () => {} },
});
createReceiver(petstore, { secret: SECRET, store, handlers: { 'pet.adopted': () => {} } });

// Handlers and per-event validation only for events of the contract.
createReceiver(petstore, {
  secret: SECRET,
  store,
  // @ts-expect-error TS2353 `''pet.sold'' does not exist` not an event of the contract
  handlers: { 'pet.sold': () => {} },
});
createReceiver(petstore, {
  secret: SECRET,
  store,
  handlers: {},
  // @ts-expect-error TS2353 `''pet.sold'' does not exist` not an event of the contract
  validationByEvent: { 'pet.sold': 'off' },
});

// Transactional handlers receive the store's transaction type.
createReceiver(petstore, {
  secret: SECRET,
  store: sqlite,
  transactional: true,
  handlers: {
    'pet.adopted': (event) => {
      expectTypeOf(event.tx).toEqualTypeOf<Database.Database>();
    },
  },
  unknownEvent: (event) => {
    expectTypeOf(event).toEqualTypeOf<UnknownEvent<Database.Database>>();
  },
});
createReceiver(petstore, {
  secret: SECRET,
  store: postgres,
  transactional: true,
  handlers: {
    'pet.adopted': (event) => {
      expectTypeOf(event.tx).toEqualTypeOf<pg.PoolClient>();
    },
  },
});
createReceiver(petstore, {
  secret: SECRET,
  store: postgresClient,
  transactional: true,
  handlers: {
    'pet.adopted': (event) => {
      expectTypeOf(event.tx).toEqualTypeOf<pg.Client>();
    },
  },
});
// …and nothing without `transactional: true`, even on a transactional store.
createReceiver(petstore, {
  secret: SECRET,
  store: postgres,
  handlers: {
    'pet.adopted': (event) => {
      expectTypeOf(event.tx).toEqualTypeOf<undefined>();
    },
  },
  unknownEvent: (event) => {
    expectTypeOf(event).toEqualTypeOf<UnknownEvent>();
  },
});

// A store is required unless dedupe is explicitly off; with dedupe off there is no store nor tx.
// @ts-expect-error TS2345 `Property 'store' is missing` (or dedupe: false)
createReceiver(petstore, { secret: SECRET, handlers: {} });
createReceiver(petstore, { secret: SECRET, dedupe: false, handlers: {} });
// @ts-expect-error TS2345 `Type 'MemoryStore' is not assignable to type 'undefined'` (dedupe: false)
createReceiver(petstore, { secret: SECRET, dedupe: false, store, handlers: {} });
// @ts-expect-error TS2322 `Type 'true' is not assignable to type 'false'` (dedupe: false)
createReceiver(petstore, { secret: SECRET, dedupe: false, transactional: true, handlers: {} });

// Option values are checked too.
// @ts-expect-error TS2322 `'"lenient"' is not assignable to type 'ValidationPolicy` (strict, report, off)
createReceiver(petstore, { secret: SECRET, store, validation: 'lenient', handlers: {} });
// @ts-expect-error TS2322 `Type 'true' is not assignable to type 'false | AckFast` (ackFast takes ackFastQueue())
createReceiver(petstore, { secret: SECRET, store, ackFast: true, handlers: {} });

// receiver.on / onAny / onUnknown: names checked, payloads narrowed, tx carried; handlers optional.
const listening = createReceiver(petstore, { secret: SECRET, store });
listening.on('pet.adopted', (event) => {
  expectTypeOf(event.data).toEqualTypeOf<PetAdopted>();
  expectTypeOf(event.type).toEqualTypeOf<'pet.adopted'>();
  expectTypeOf(event.tx).toEqualTypeOf<undefined>();
});
// @ts-expect-error TS2345 `'"nope"' is not assignable to parameter` not an event of the contract
listening.on('nope', () => {});
listening.on('pet.listed', (event) => {
  // @ts-expect-error TS2339 `'adopter' does not exist on type 'PetListed'`
  void event.data.adopter;
});
listening.onAny((event) => {
  if (event.type === 'pet.adopted') expectTypeOf(event.data).toEqualTypeOf<PetAdopted>();
  else expectTypeOf(event.data).toEqualTypeOf<PetListed>();
});
listening.onUnknown((event) => {
  expectTypeOf(event).toEqualTypeOf<UnknownEvent>();
});
expectTypeOf(listening.on('pet.adopted', () => {})).toEqualTypeOf(listening);
// A typed receiver is still a `Receiver`.
const plain: Receiver = listening;
void plain;
createReceiver(petstore, {
  secret: SECRET,
  store: sqlite,
  transactional: true,
  onUnknown: (event) => {
    expectTypeOf(event).toEqualTypeOf<UnknownEvent<Database.Database>>();
  },
  preHandle: (event) => {
    expectTypeOf(event.tx).toEqualTypeOf<Database.Database>();
    if (event.type === 'pet.adopted') expectTypeOf(event.data).toEqualTypeOf<PetAdopted | unknown>();
  },
}).on('pet.adopted', (event) => {
  expectTypeOf(event.tx).toEqualTypeOf<Database.Database>();
});
