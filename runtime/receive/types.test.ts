/** Compile-time behaviour of the receiver options (checked by `tsc`; the runtime assertions are trivial). */
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type PetAdopted, type PetListed, petstore, SECRET } from '../../test/receiver/fixtures.js';
import { memoryStore } from '../stores/memory.js';
import type { PostgresStore, PostgresTxOf } from '../stores/postgres.js';
import type { SqliteStore } from '../stores/sqlite.js';
import { createReceiver } from './create-receiver.js';

// What sqliteStore(db) and postgresStore(pool) return for the drivers' own instances.
declare const sqlite: SqliteStore<Database.Database>;
declare const postgres: PostgresStore<PostgresTxOf<pg.Pool>>;
declare const postgresClient: PostgresStore<PostgresTxOf<pg.Client>>;

describe('ReceiverOptions typing', () => {
  it('types each handler by its event', () => {
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      handlers: {
        'pet.adopted': (event) => {
          expectTypeOf(event.data).toEqualTypeOf<PetAdopted>();
          expectTypeOf(event.type).toEqualTypeOf<'pet.adopted'>();
          expectTypeOf(event.tx).toEqualTypeOf<undefined>();
          expectTypeOf(event.timestamp).toEqualTypeOf<Date | undefined>();
        },
        'pet.listed': (event) => {
          expectTypeOf(event.data).toEqualTypeOf<PetListed>();
        },
      },
    });
    expect(typeof receiver.handle).toBe('function');
  });

  it('exhaustive: true requires every handler', () => {
    // @ts-expect-error 'pet.listed' is missing
    createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      exhaustive: true,
      handlers: { 'pet.adopted': () => {} },
    });
    createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      exhaustive: true,
      handlers: { 'pet.adopted': () => {}, 'pet.listed': () => {} },
    });
    // Partial handlers are fine without exhaustive.
    createReceiver(petstore, { secret: SECRET, store: memoryStore(), handlers: { 'pet.adopted': () => {} } });
    expect(true).toBe(true);
  });

  it('rejects handlers for events the contract does not have', () => {
    createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      // @ts-expect-error not an event of the contract
      handlers: { 'pet.sold': () => {} },
    });
    expect(true).toBe(true);
  });

  it('hands transactional handlers the store transaction type', () => {
    const make = () => {
      createReceiver(petstore, {
        secret: SECRET,
        store: sqlite,
        transactional: true,
        handlers: {
          'pet.adopted': (event) => {
            expectTypeOf(event.tx).toEqualTypeOf<Database.Database>();
          },
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
    };
    expect(typeof make).toBe('function');
  });

  it('requires a store unless dedupe is explicitly off', () => {
    // @ts-expect-error store (or dedupe: false) is required
    const missing = () => createReceiver(petstore, { secret: SECRET, handlers: {} });
    createReceiver(petstore, { secret: SECRET, dedupe: false, handlers: {} });
    expect(missing).toThrow(/store/);
  });
});
