/**
 * Fault: a sender (or an attacker with a valid secret) sends an event id of a few kB. On PostgreSQL
 * the key exceeded the btree entry limit (~2.7 kB): every claim and enqueue failed, so the event was
 * answered 503 on every retry forever — a poison event.
 *
 * Must hold: every store keys a long id by a fixed-length digest (`sha256:<hex>`, the same in all
 * stores), so a 3,000-byte id is processed once and its duplicate recognised, inline and in
 * ack-fast mode, on memory, SQLite, PostgreSQL and Redis.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ackFastQueue } from '../../runtime/receive/ack-fast-mode.js';
import { createReceiver } from '../../runtime/receive/receiver-web.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { postgresStore } from '../../runtime/stores/postgres.js';
import { redisStore } from '../../runtime/stores/redis.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import type { IdempotencyStore } from '../../runtime/stores/types.js';
import { adopted, delivery, petstore, SECRET } from '../receiver/fixtures.js';
import { DATABASE_URL, missing, pgSchema, REDIS_URL } from './services.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-longid-'));
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** 3,000 bytes of random text: PostgreSQL would compress a repetitive id below its limit. */
const longId = (): string => `msg_${randomBytes(2247).toString('base64')}`;

interface Backend {
  readonly name: string;
  readonly skip: boolean;
  readonly queue: boolean;
  create(): Promise<IdempotencyStore<unknown>>;
}

const backends: Backend[] = [
  { name: 'memory', skip: false, queue: true, create: async () => memoryStore() },
  { name: 'sqlite', skip: false, queue: true, create: async () => sqliteStore(path.join(dir, 'long.db')) },
  {
    name: 'postgres',
    skip: missing('DATABASE_URL'),
    queue: true,
    async create() {
      const db = pgSchema('longid');
      cleanups.push(() => db.drop());
      const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
      cleanups.push(() => pool.end());
      return postgresStore(pool, { schema: db.schema });
    },
  },
  {
    name: 'redis',
    skip: missing('REDIS_URL'),
    queue: false,
    async create() {
      const client = new Redis(REDIS_URL ?? '');
      cleanups.push(() => client.quit());
      return redisStore(client, { prefix: `gw-sec:${randomUUID()}:` });
    },
  },
];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`${backend.name}: a 3,000-byte event id`, () => {
    it('inline: processed once, its duplicate recognised', async () => {
      const runs: string[] = [];
      const receiver = createReceiver(petstore, {
        secret: SECRET,
        store: await backend.create(),
        handlers: { 'pet.adopted': (event) => void runs.push(event.id) },
      });
      const id = longId();
      expect(id.length).toBe(3000);
      const d = delivery('pet.adopted', adopted(), { id });
      const first = await receiver.handle(d);
      expect([first.status, JSON.parse(first.body)]).toEqual([200, { status: 'processed' }]);
      const again = await receiver.handle(d);
      expect([again.status, JSON.parse(again.body)]).toEqual([200, { status: 'already processed' }]);
      expect(runs).toEqual([id]);
    });

    if (backend.queue) {
      it('ack-fast: queued once, processed once', async () => {
        const runs: string[] = [];
        const receiver = createReceiver(petstore, {
          secret: SECRET,
          store: await backend.create(),
          ackFast: ackFastQueue(),
          handlers: { 'pet.adopted': (event) => void runs.push(event.id) },
        });
        const id = longId();
        const d = delivery('pet.adopted', adopted(), { id });
        expect((await receiver.handle(d)).status).toBe(200);
        expect((await receiver.handle(d)).status).toBe(200);
        expect(await receiver.drain()).toEqual({ processed: 1, failed: 0 });
        expect((await receiver.handle(d)).status).toBe(200);
        expect(await receiver.drain()).toEqual({ processed: 1, failed: 0 });
        expect(runs).toEqual([id]);
      });
    }
  });
}
