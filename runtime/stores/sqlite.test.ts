import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { isWebhookError } from '../errors.js';
import { sqliteStore } from './sqlite.js';
import { runStoreSuite } from './store-suite.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sqlite-store-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

runStoreSuite('sqlite (file path)', {
  transactions: true,
  queue: true,
  create: () => sqliteStore(path.join(dir, 'a.db')),
});
runStoreSuite('sqlite (Database instance)', {
  transactions: true,
  queue: true,
  create: () => sqliteStore(new Database(path.join(dir, 'b.db')), { table: 'hooks_dedupe' }),
});

describe('sqliteStore', () => {
  it('opens the file in WAL mode and shares keys with a second connection', async () => {
    const file = path.join(dir, 'shared.db');
    const one = sqliteStore(file);
    const two = sqliteStore(file);
    expect(await one.claim('k', { leaseMs: 1000, now: 1, token: 'a' })).toBe('claimed');
    expect(await two.claim('k', { leaseMs: 1000, now: 2, token: 'b' })).toBe('in_progress');
    await one.complete('k', { ttlMs: 1000, now: 3 });
    expect(await two.claim('k', { leaseMs: 1000, now: 4, token: 'c' })).toBe('duplicate');
    expect((await one.database()).pragma('journal_mode', { simple: true })).toBe('wal');
    await one.close();
    await two.close();
  });

  it('opens its own file with a 2 MB page cache and leaves a passed Database as it is', async () => {
    // A large cache made every page-splitting commit on a big store slower (see SQLITE_CACHE_KIB).
    const own = sqliteStore(path.join(dir, 'cache.db'));
    expect((await own.database()).pragma('cache_size', { simple: true })).toBe(-2000);
    const db = new Database(path.join(dir, 'cache-passed.db'));
    db.pragma('cache_size = -8000');
    const passed = sqliteStore(db);
    expect(await passed.claim('k', { leaseMs: 1000, now: 1, token: 'a' })).toBe('claimed');
    expect(db.pragma('cache_size', { simple: true })).toBe(-8000);
    await own.close();
    db.close();
  });

  it('rolls back the business write with the dedupe row (transactional mode)', async () => {
    const db = new Database(path.join(dir, 'tx.db'));
    db.exec('CREATE TABLE adoptions (pet TEXT PRIMARY KEY)');
    const store = sqliteStore(db);
    const opts = { leaseMs: 1000, ttlMs: 10_000, now: 1, token: 't' };
    await expect(
      store.transaction('evt_1', opts, (tx) => {
        tx.prepare('INSERT INTO adoptions (pet) VALUES (?)').run('rex');
        throw new Error('after the write');
      }),
    ).rejects.toThrow('after the write');
    expect(db.prepare('SELECT count(*) AS n FROM adoptions').get()).toEqual({ n: 0 });
    expect(await store.claim('evt_1', { leaseMs: 1000, now: 2, token: 'x' })).toBe('claimed');
    await store.release('evt_1', { token: 'x' });

    const ok = await store.transaction('evt_1', opts, async (tx) => {
      await Promise.resolve();
      return tx.prepare('INSERT INTO adoptions (pet) VALUES (?)').run('rex').changes;
    });
    expect(ok).toEqual({ status: 'committed', value: 1 });
    expect(await store.transaction('evt_1', opts, () => 0)).toEqual({ status: 'duplicate' });
    expect(db.prepare('SELECT count(*) AS n FROM adoptions').get()).toEqual({ n: 1 });
  });

  it('keeps other operations out of an open async transaction', async () => {
    const db = new Database(path.join(dir, 'interleave.db'));
    const store = sqliteStore(db);
    let inside: () => void = () => {};
    const entered = new Promise<void>((resolve) => {
      inside = resolve;
    });
    let finish: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const tx = store
      .transaction('a', { leaseMs: 1000, ttlMs: 1000, now: 1, token: 't' }, async () => {
        inside();
        await gate;
        throw new Error('rolled back');
      })
      .catch((error: unknown) => error);
    await entered;
    // This claim must not become part of the transaction that is about to roll back.
    const claim = store.claim('b', { leaseMs: 1000, now: 1, token: 'u' });
    finish();
    expect(await tx).toBeInstanceOf(Error);
    expect(await claim).toBe('claimed');
    expect(await store.claim('b', { leaseMs: 1000, now: 2, token: 'v' })).toBe('in_progress');
  });

  it('rejects table names that are not plain identifiers', () => {
    expect(() => sqliteStore(':memory:', { table: 'x; DROP TABLE y' })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
  });

  it('reports a broken database as store_error', async () => {
    const db = new Database(path.join(dir, 'closed.db'));
    const store = sqliteStore(db);
    await store.claim('x', { leaseMs: 1, now: 1, token: 't' });
    db.close();
    const error = await store.claim('y', { leaseMs: 1, now: 1, token: 't' }).catch((e: unknown) => e);
    expect(isWebhookError(error, 'store_error')).toBe(true);
  });
});
