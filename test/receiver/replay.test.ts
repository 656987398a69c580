/**
 * The replay test: one signed delivery sent 10 times (sequentially) and 50 times at once (over real
 * HTTP) → the handler's side effect happens exactly once; the others answer 200 "already processed"
 * (or 409 + Retry-After while the first holds the lease, then 200 on retry) without touching the
 * business table. Against SQLite, PostgreSQL and Redis, plain and transactional.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import type { Receiver } from '../../runtime/receive/types.js';
import { postgresStore } from '../../runtime/stores/postgres.js';
import { redisStore } from '../../runtime/stores/redis.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import { missingEnv } from '../support/requires.js';
import { adopted, delivery, type PetstoreEvents, petstore, SECRET } from './fixtures.js';
import { type Listening, listen, post } from './http.js';

const databaseUrl = process.env['DATABASE_URL'];
const redisUrl = process.env['REDIS_URL'];
const noDatabase = missingEnv('DATABASE_URL', 'the PostgreSQL replay tests');
const noRedis = missingEnv('REDIS_URL', 'the Redis replay tests');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-replay-'));
const suffix = randomUUID().replaceAll('-', '').slice(0, 10);
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Harness {
  readonly receiver: Receiver<PetstoreEvents>;
  /** Rows in the business table (or the Redis counter). */
  count(): Promise<number>;
  /** Handler invocations. */
  readonly calls: { n: number };
  /** Make the next invocation throw after its business write. */
  failNext(): void;
}

type HarnessFactory = (name: string) => Promise<Harness>;

const pause = () => new Promise((resolve) => setTimeout(resolve, 30));

const backends: { name: string; skip: boolean; make: HarnessFactory }[] = [
  ...[false, true].map((transactional) => ({
    name: `sqlite${transactional ? ' (transactional)' : ''}`,
    skip: false,
    make: async (name: string): Promise<Harness> => {
      const db = new Database(path.join(dir, `${name}-${transactional}.db`));
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TABLE adoptions (pet TEXT NOT NULL, event TEXT NOT NULL)');
      cleanups.push(() => {
        db.close();
      });
      const calls = { n: 0 };
      let fail = false;
      const insert = db.prepare('INSERT INTO adoptions (pet, event) VALUES (?, ?)');
      const handler = async (e: { id: string; data: { petId: string } }) => {
        calls.n++;
        // Transactional handlers write synchronously inside BEGIN IMMEDIATE; plain ones may await.
        if (!transactional) await pause();
        insert.run(e.data.petId, e.id);
        if (fail) {
          fail = false;
          throw new Error('fails after the write');
        }
      };
      const receiver = transactional
        ? createReceiver(petstore, {
            secret: SECRET,
            store: sqliteStore(db),
            transactional: true,
            handlers: { 'pet.adopted': handler },
          })
        : createReceiver(petstore, {
            secret: SECRET,
            store: sqliteStore(db),
            handlers: { 'pet.adopted': handler },
          });
      return {
        receiver,
        calls,
        failNext: () => {
          fail = true;
        },
        count: async () => (db.prepare('SELECT count(*) AS n FROM adoptions').get() as { n: number }).n,
      };
    },
  })),
  ...[false, true].map((transactional) => ({
    name: `postgres${transactional ? ' (transactional)' : ''}`,
    skip: noDatabase,
    make: async (name: string): Promise<Harness> => {
      const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
      const table = `gw_rp_${name}_${transactional ? 'tx' : 'plain'}_${suffix}`;
      await pool.query(`CREATE TABLE ${table}_biz (pet text NOT NULL, event text NOT NULL)`);
      cleanups.push(async () => {
        await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_queue, ${table}_biz`);
        await pool.end();
      });
      const calls = { n: 0 };
      let fail = false;
      const handler = async (e: {
        id: string;
        data: { petId: string };
        tx: pg.PoolClient | pg.Client | undefined;
      }) => {
        calls.n++;
        await pause();
        await (e.tx ?? pool).query(`INSERT INTO ${table}_biz (pet, event) VALUES ($1, $2)`, [
          e.data.petId,
          e.id,
        ]);
        if (fail) {
          fail = false;
          throw new Error('fails after the write');
        }
      };
      const store = postgresStore(pool, { table });
      const receiver = transactional
        ? createReceiver(petstore, {
            secret: SECRET,
            store,
            transactional: true,
            handlers: { 'pet.adopted': handler },
          })
        : createReceiver(petstore, { secret: SECRET, store, handlers: { 'pet.adopted': handler } });
      return {
        receiver,
        calls,
        failNext: () => {
          fail = true;
        },
        count: async () =>
          (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}_biz`)).rows[0]?.n ?? -1,
      };
    },
  })),
  {
    name: 'redis',
    skip: noRedis,
    make: async (name: string): Promise<Harness> => {
      const client = new Redis(redisUrl ?? '');
      const prefix = `gw-replay:${suffix}:${name}:`;
      cleanups.push(async () => {
        const keys = await client.keys(`${prefix}*`);
        if (keys.length > 0) await client.del(...keys);
        await client.quit();
      });
      const calls = { n: 0 };
      let fail = false;
      const receiver = createReceiver(petstore, {
        secret: SECRET,
        store: redisStore(client, { prefix }),
        handlers: {
          'pet.adopted': async () => {
            calls.n++;
            await pause();
            await client.incr(`${prefix}business`);
            if (fail) {
              fail = false;
              throw new Error('fails after the write');
            }
          },
        },
      });
      return {
        receiver,
        calls,
        failNext: () => {
          fail = true;
        },
        count: async () => Number((await client.get(`${prefix}business`)) ?? 0),
      };
    },
  },
];

async function serve(receiver: Receiver<PetstoreEvents>): Promise<Listening> {
  const server = await listen(http.createServer(receiver.node()));
  cleanups.push(() => server.close());
  return server;
}

for (const backend of backends) {
  describe.skipIf(backend.skip)(`replay: ${backend.name}`, () => {
    it('one delivery sent 10 times in sequence: processed once, 9 × 200 already processed', async () => {
      const h = await backend.make('seq');
      const server = await serve(h.receiver);
      const d = delivery('pet.adopted', adopted());
      const answers = [];
      for (let i = 0; i < 10; i++) answers.push(await post(server.url, d));
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
      expect(answers.map((a) => JSON.parse(a.body).status)).toEqual([
        'processed',
        ...Array(9).fill('already processed'),
      ]);
      expect(h.calls.n).toBe(1);
      expect(await h.count()).toBe(1);
    });

    it('one delivery sent 50 times at once over HTTP: the side effect happens once', async () => {
      const h = await backend.make('burst');
      const server = await serve(h.receiver);
      const d = delivery('pet.adopted', adopted());
      const answers = await Promise.all(Array.from({ length: 50 }, () => post(server.url, d)));
      const statuses = answers.map((a) => (a.status === 200 ? JSON.parse(a.body).status : a.status));
      expect(statuses.filter((s) => s === 'processed')).toHaveLength(1);
      expect(statuses.every((s) => s === 'processed' || s === 'already processed' || s === 409)).toBe(true);
      for (const a of answers.filter((x) => x.status === 409))
        expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
      // The sender retries the 409s: all of them now see the finished event.
      const retried = await Promise.all(
        answers.filter((a) => a.status === 409).map(() => post(server.url, d)),
      );
      expect(retried.map((a) => `${a.status} ${a.body}`)).toEqual(
        retried.map(() => `200 {"status":"already processed"}`),
      );
      expect(h.calls.n).toBe(1);
      expect(await h.count()).toBe(1);
    });

    it('a handler failure answers 5xx and the retry processes the event', async () => {
      const h = await backend.make('fail');
      const server = await serve(h.receiver);
      const d = delivery('pet.adopted', adopted());
      h.failNext();
      expect((await post(server.url, d)).status).toBe(500);
      expect(JSON.parse((await post(server.url, d)).body)).toEqual({ status: 'processed' });
      expect(JSON.parse((await post(server.url, d)).body)).toEqual({ status: 'already processed' });
      expect(h.calls.n).toBe(2);
      // Transactional stores rolled the failed attempt's write back; the others kept it (at-least-once).
      expect(await h.count()).toBe(backend.name.includes('transactional') ? 1 : 2);
    });
  });
}
