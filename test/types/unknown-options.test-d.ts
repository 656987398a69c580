/**
 * Compile-only: an unknown option key is a type error for the factories that refuse one at run time
 * (runtime/known-options.ts; test/receiver/unknown-options.test.ts checks the run-time half). Checked
 * by `npm run typecheck` and by test/receiver/unknown-options.test.ts (test/types/expect-errors.ts):
 * every `@ts-expect-error` must be needed, and must be met by the error it names.
 */

import type { Outbox } from '../../runtime/deliver/outbox.js';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import type { DeliveryWorker } from '../../runtime/deliver/worker-options.js';
import type { BetterSqlite3 } from '../../runtime/drivers/better-sqlite3.js';
import type { Redis } from '../../runtime/drivers/ioredis.js';
import type { Pool } from '../../runtime/drivers/pg.js';
import { unsafeAllowAnyone } from '../../runtime/manage/authorize.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { createManagementHandler } from '../../runtime/manage/handler.js';
import { createPortalHandler } from '../../runtime/portal/handler.js';
import { createPortalLink } from '../../runtime/portal/link.js';
import { providerContract } from '../../runtime/presets/provider-contract.js';
import { providers } from '../../runtime/presets/registry.js';
import type { Receiver } from '../../runtime/receive/types.js';
import { startRetention } from '../../runtime/retention.js';
import { postgresStore } from '../../runtime/stores/postgres.js';
import { redisStore } from '../../runtime/stores/redis.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import { petstore } from '../receiver/fixtures.js';

declare const db: BetterSqlite3.Database;
declare const pool: Pool;
declare const redis: Redis;
declare const outbox: Outbox;
declare const worker: DeliveryWorker;
declare const receiver: Receiver;

const key = 'a portal key of at least thirty-two bytes';
const link = { key, tenant: 't1', portalUrl: 'https://api.example.com/webhooks/portal' };

export const stores = [
  sqliteStore(db, { table: 'idempotency' }),
  // @ts-expect-error TS2769 `bogus` not an option of sqliteStore (no overload takes it)
  sqliteStore(db, { bogus: true }),
  // @ts-expect-error TS2353 `bogus` not an option of postgresStore
  postgresStore(pool, { bogus: true }),
  // @ts-expect-error TS2353 `bogus` not an option of redisStore
  redisStore(redis, { bogus: true }),
];

export const outboxes = [
  sqliteOutbox(db, { prefix: 'x_' }),
  // @ts-expect-error TS2353 `bogus` not an option of sqliteOutbox
  sqliteOutbox(db, { bogus: true }),
  // @ts-expect-error TS2353 `bogus` not an option of postgresOutbox
  postgresOutbox(pool, { bogus: true }),
  // @ts-expect-error TS2353 `bogus` not a key of a secret key
  postgresOutbox(pool, { secretKeys: [{ id: 'k1', key: 'x', bogus: true }] }),
];

export const managers = [
  createEndpointManager({ outbox, resolveOnRegister: false }),
  // @ts-expect-error TS2353 `bogus` not an option of createEndpointManager
  createEndpointManager({ outbox, bogus: true }),
  // @ts-expect-error TS2353 `bogus` not an option of urlPolicy
  createEndpointManager({ outbox, urlPolicy: { bogus: true } }),
  // @ts-expect-error TS2353 `origin` is a cloudevents option, not an event one
  createEndpointManager({ outbox, verification: { mode: 'event', origin: 'webhooks.example.com' } }),
];

export const handlers = [
  createManagementHandler({ outbox, authorize: unsafeAllowAnyone() }),
  // @ts-expect-error TS2353 `bogus` not an option of createManagementHandler
  createManagementHandler({ outbox, authorize: unsafeAllowAnyone(), bogus: true }),
  // @ts-expect-error TS2353 `tenant` comes from `authorize`, not an option
  createManagementHandler({ outbox, authorize: unsafeAllowAnyone(), tenant: 't1' }),
  createPortalHandler({ outbox, contract: petstore, key }),
  // @ts-expect-error TS2353 `bogus` not an option of createPortalHandler
  createPortalHandler({ outbox, contract: petstore, key, bogus: true }),
];

export const links = [
  createPortalLink(link),
  // @ts-expect-error TS2353 `bogus` not an option of createPortalLink
  createPortalLink({ ...link, bogus: true }),
];

export const retention = startRetention({ outbox, keepAttempts: 1, keepMessages: 1 });
export const badRetention = startRetention({
  outbox,
  keepAttempts: 1,
  keepMessages: 1,
  // @ts-expect-error TS2561 `keepAttemptsMs` is the prune option's name, not the schedule's
  keepAttemptsMs: 1,
});

export async function stops(): Promise<void> {
  await worker.stop({ timeoutMs: 100 });
  // @ts-expect-error TS2353 `bogus` not an option of worker.stop
  await worker.stop({ bogus: true });
  // @ts-expect-error TS2353 `bogus` not an option of receiver.close
  await receiver.close({ bogus: true });
  // @ts-expect-error TS2353 `bogus` not an option of retention.stop
  await retention.stop({ bogus: true });
}

export const presets = [
  providers.github.scheme({ secret: 's', legacySha1: true }),
  // @ts-expect-error TS2353 `bogus` not an option of a preset's scheme
  providers.github.scheme({ secret: 's', bogus: true }),
  // @ts-expect-error TS2353 `bogus` not an option of providerContract
  providerContract('github', {}, { bogus: true }),
];
