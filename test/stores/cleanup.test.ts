/**
 * `cleanup` on every store with a table: bounded batches that give the event loop back, exactly the
 * expired keys removed (never a live lease or a done key inside its TTL), abortable, and for SQLite
 * the freed pages handed back to the file system.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryStore } from '../../runtime/stores/memory.js';
import { postgresStore } from '../../runtime/stores/postgres.js';
import { sqliteSchema, sqliteStore } from '../../runtime/stores/sqlite.js';
import type { IdempotencyStore } from '../../runtime/stores/types.js';
import { missingEnv } from '../support/requires.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-store-cleanup-'));
const noPostgres = missingEnv('DATABASE_URL', 'the PostgreSQL store cleanup tests');
const pools: pg.Pool[] = [];
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await Promise.all(pools.map((p) => p.end()));
});

const NOW = 1_800_000_000_000;
const N = 2_500;

interface Row {
  key: string;
  state: 'inflight' | 'done';
  token: string | null;
  expires_at: number;
}

/** Keys in random order with every kind of row: expired and live, leases and done keys. */
function rows(): Row[] {
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  return Array.from({ length: N }, (_, i) => {
    const inflight = rnd() < 0.3;
    const expired = rnd() < 0.6;
    return {
      key: `evt_${Math.floor(rnd() * 1e9).toString(36)}_${i}`,
      state: inflight ? 'inflight' : 'done',
      token: inflight ? `tok${i}` : null,
      // Exactly `now` counts as expired (a claim may take it over).
      expires_at: expired ? NOW - Math.floor(rnd() * 1e6) : NOW + 1 + Math.floor(rnd() * 1e6),
    };
  });
}

/** Counts event-loop turns taken while a cleanup runs (a chain of setImmediate callbacks). */
function countTurns() {
  const turns = { count: 0, stop: () => {} };
  let on = true;
  const tick = () => {
    if (!on) return;
    turns.count++;
    setImmediate(tick);
  };
  setImmediate(tick);
  turns.stop = () => {
    on = false;
  };
  return turns;
}

interface Backend {
  name: string;
  skip?: boolean;
  make(): Promise<{
    store: IdempotencyStore<unknown>;
    keys(): Promise<string[]>;
    fill(r: Row[]): Promise<void>;
  }>;
}

let n = 0;
const backends: Backend[] = [
  {
    name: 'sqlite',
    async make() {
      const db = new Database(path.join(dir, `c${++n}.db`));
      db.exec(sqliteSchema());
      const store = sqliteStore(db);
      const insert = db.prepare(
        'INSERT INTO webhook_idempotency (key, state, token, expires_at) VALUES (@key, @state, @token, @expires_at)',
      );
      return {
        store,
        fill: async (r) =>
          db.transaction(() => {
            for (const row of r) insert.run(row);
          })(),
        keys: async () => db.prepare('SELECT key FROM webhook_idempotency').pluck().all() as string[],
      };
    },
  },
  {
    name: 'postgres',
    skip: noPostgres,
    async make() {
      const pool = new pg.Pool({ connectionString: process.env['DATABASE_URL'] });
      pools.push(pool);
      const table = `cleanup_${process.pid}_${++n}`;
      const store = postgresStore(pool, { table });
      await store.migrate();
      return {
        store,
        fill: async (r) => {
          await pool.query(
            `INSERT INTO ${table} (key, state, token, expires_at)
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])`,
            [r.map((x) => x.key), r.map((x) => x.state), r.map((x) => x.token), r.map((x) => x.expires_at)],
          );
        },
        keys: async () =>
          (await pool.query<{ key: string }>(`SELECT key FROM ${table}`)).rows.map((x) => x.key),
      };
    },
  },
  {
    name: 'memory',
    async make() {
      const store = memoryStore();
      const live = new Set<string>();
      return {
        store,
        fill: async (r) => {
          for (const row of r) {
            if (row.state === 'inflight') {
              await store.claim(row.key, { leaseMs: row.expires_at - 0, now: 0, token: row.token as string });
            } else {
              await store.complete(row.key, { ttlMs: row.expires_at, now: 0 });
            }
            live.add(row.key);
          }
        },
        // The memory store has no listing: a key is there while a claim at `now` is refused.
        keys: async () => {
          const out: string[] = [];
          for (const k of live) {
            const probe = await store.claim(k, { leaseMs: 1, now: -1, token: 'probe' });
            if (probe !== 'claimed') out.push(k);
            else await store.release(k, { token: 'probe' });
          }
          return out;
        },
      };
    },
  },
];

describe.each(backends)('$name store cleanup', (backend) => {
  it.skipIf(backend.skip === true)(
    'removes exactly the expired keys in bounded batches, yielding between them',
    async () => {
      const { store, fill, keys } = await backend.make();
      const all = rows();
      await fill(all);
      const turns = countTurns();
      const removed = await store.cleanup(NOW, { batchSize: 100 });
      turns.stop();
      const expired = all.filter((r) => r.expires_at <= NOW);
      expect(removed).toBe(expired.length);
      const left = new Set(await keys());
      for (const r of all) expect(left.has(r.key)).toBe(r.expires_at > NOW);
      // ~N / 100 batches for the key walk, ~expired / 100 through an index: the loop ran in between.
      expect(turns.count).toBeGreaterThanOrEqual(Math.floor(expired.length / 100) - 1);
      expect(await store.cleanup(NOW, { batchSize: 100 })).toBe(0);
    },
  );

  it.skipIf(backend.skip === true)('stops between batches when aborted', async () => {
    const { store, fill } = await backend.make();
    await fill(rows());
    const controller = new AbortController();
    const first = store.cleanup(NOW, { batchSize: 50, signal: controller.signal });
    // The loop yields with setImmediate between batches: this abort is queued before the first of
    // those turns, so the cleanup stops after one batch however fast or loaded the machine is.
    setImmediate(() => controller.abort());
    const partial = await first;
    const rest = await store.cleanup(NOW, { batchSize: 50 });
    expect(rest).toBeGreaterThan(0);
    expect(partial + rest).toBe(rows().filter((r) => r.expires_at <= NOW).length);
  });
});

describe('sqliteStore files', () => {
  it('opens a new file with incremental auto-vacuum and hands freed pages back after cleanup', async () => {
    const file = path.join(dir, 'vacuum.db');
    const store = sqliteStore(file);
    const db = await store.database();
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
    db.exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 50000)
      INSERT INTO webhook_idempotency (key, state, token, expires_at)
      SELECT 'evt_' || lower(hex(randomblob(16))), 'done', NULL, ${NOW} - i FROM c`);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const full = fs.statSync(file).size;
    expect(await store.cleanup(NOW)).toBe(50_000);
    db.pragma('wal_checkpoint(TRUNCATE)');
    expect(db.pragma('freelist_count', { simple: true })).toBe(0);
    expect(fs.statSync(file).size).toBeLessThan(full / 10);
    await store.close();
  });

  it('checkpoints in a worker thread while cleanup runs, then restores automatic checkpoints', async () => {
    const file = path.join(dir, 'checkpoint.db');
    const store = sqliteStore(file);
    const db = await store.database();
    db.exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 50000)
      INSERT INTO webhook_idempotency (key, state, token, expires_at)
      SELECT 'evt_' || lower(hex(randomblob(16))), 'done', NULL, ${NOW} - i FROM c`);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const seen: number[] = [];
    const watcher = setInterval(
      () => seen.push(Number(db.pragma('wal_autocheckpoint', { simple: true }))),
      0,
    );
    await store.cleanup(NOW, { batchSize: 200 });
    clearInterval(watcher);
    expect(seen).toContain(0);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    await store.close();
  });

  it('drops the expires_at index of a table made by an earlier version, keeping its keys', async () => {
    const db = new Database(path.join(dir, 'old.db'));
    db.exec(`CREATE TABLE webhook_idempotency (key TEXT PRIMARY KEY, state TEXT NOT NULL, token TEXT,
      expires_at INTEGER NOT NULL) WITHOUT ROWID;
      CREATE INDEX webhook_idempotency_expires_at ON webhook_idempotency (expires_at);
      INSERT INTO webhook_idempotency VALUES ('old', 'done', NULL, ${NOW + 1000});`);
    const store = sqliteStore(db);
    expect(await store.claim('old', { leaseMs: 1000, now: NOW, token: 't' })).toBe('duplicate');
    const indexes = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index'`).pluck().all();
    expect(indexes).not.toContain('webhook_idempotency_expires_at');
    // A file with tables keeps its vacuum mode: changing it needs a VACUUM (docs/retention.md).
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(0);
  });

  it('a lone operation commits on its own and stays visible to a second connection', async () => {
    const file = path.join(dir, 'lone.db');
    const one = sqliteStore(file);
    const other = new Database(file);
    expect(await one.claim('k1', { leaseMs: 1000, now: NOW, token: 'a' })).toBe('claimed');
    expect(other.prepare(`SELECT state FROM webhook_idempotency WHERE key = 'k1'`).pluck().get()).toBe(
      'inflight',
    );
    await one.complete('k1', { ttlMs: 1000, now: NOW });
    expect(other.prepare(`SELECT state FROM webhook_idempotency WHERE key = 'k1'`).pluck().get()).toBe(
      'done',
    );
    other.close();
    await one.close();
  });
});

describe.skipIf(noPostgres)('postgresStore cleanup', () => {
  it('never deletes a key a claim takes over while the cleanup waits for its row', async () => {
    const pool = new pg.Pool({ connectionString: process.env['DATABASE_URL'] });
    pools.push(pool);
    const table = `cleanup_race_${process.pid}`;
    const store = postgresStore(pool, { table });
    await store.migrate();
    await pool.query(`TRUNCATE ${table}`);
    await pool.query(`INSERT INTO ${table} VALUES ('k', 'inflight', 'dead-worker', ${NOW - 1})`);
    // A claim taking over the expired lease, still uncommitted while the cleanup runs.
    const claimer = await pool.connect();
    await claimer.query('BEGIN');
    await claimer.query(`UPDATE ${table} SET token = 'new', expires_at = ${NOW + 60_000} WHERE key = 'k'`);
    const cleaning = store.cleanup(NOW);
    await new Promise((r) => setTimeout(r, 200));
    await claimer.query('COMMIT');
    claimer.release();
    expect(await cleaning).toBe(0);
    expect(await store.claim('k', { leaseMs: 1000, now: NOW, token: 'x' })).toBe('in_progress');
  });
});
