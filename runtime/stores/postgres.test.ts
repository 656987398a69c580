import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresSchema, postgresStore } from './postgres.js';
import { runStoreSuite } from './store-suite.js';

const url = process.env['DATABASE_URL'];
if (url === undefined) console.warn('skipping PostgreSQL store tests: DATABASE_URL is not set');

const suffix = randomUUID().replaceAll('-', '').slice(0, 12);
const pools: pg.Pool[] = [];
const tables: string[] = [];
const pool = (): pg.Pool => {
  const p = new pg.Pool({ connectionString: url, max: 8 });
  pools.push(p);
  return p;
};
const table = (name: string): string => {
  const t = `${name}_${suffix}`;
  tables.push(t);
  return t;
};

afterAll(async () => {
  if (url === undefined) return;
  const p = new pg.Pool({ connectionString: url, max: 1 });
  for (const t of tables) await p.query(`DROP TABLE IF EXISTS ${t}, ${t}_queue`);
  await p.end();
  await Promise.all(pools.map((p) => p.end()));
});

runStoreSuite('postgres (Pool)', {
  transactions: true,
  queue: true,
  skip: url === undefined,
  create: () => postgresStore(pool(), { table: table('gw_st_pool') }),
});
runStoreSuite('postgres (Client)', {
  transactions: true,
  queue: true,
  skip: url === undefined,
  create: async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const t = table('gw_st_client');
    return { ...postgresStore(client, { table: t }), close: () => client.end() };
  },
});

describe.skipIf(url === undefined)('postgresStore', () => {
  it('migrates idempotently from many processes at once', async () => {
    const t = table('gw_st_migrate');
    const p = pool();
    await Promise.all(Array.from({ length: 5 }, () => postgresStore(p, { table: t }).migrate()));
    expect(postgresSchema({ table: t })).toContain(`CREATE TABLE IF NOT EXISTS public.${t}`);
  });

  it('rolls back the business write with the dedupe row (transactional mode)', async () => {
    const p = pool();
    const biz = table('gw_st_adoptions');
    await p.query(`CREATE TABLE ${biz} (pet text PRIMARY KEY)`);
    const store = postgresStore(p, { table: table('gw_st_tx') });
    const opts = { leaseMs: 1000, ttlMs: 10_000, now: 1, token: 't' };
    await expect(
      store.transaction('evt_1', opts, async (tx) => {
        await tx.query(`INSERT INTO ${biz} (pet) VALUES ($1)`, ['rex']);
        throw new Error('after the write');
      }),
    ).rejects.toThrow('after the write');
    expect((await p.query(`SELECT count(*)::int AS n FROM ${biz}`)).rows[0]).toEqual({ n: 0 });

    const ok = await store.transaction('evt_1', opts, async (tx) => {
      return (await tx.query(`INSERT INTO ${biz} (pet) VALUES ($1)`, ['rex'])).rowCount;
    });
    expect(ok).toEqual({ status: 'committed', value: 1 });
    expect(await store.transaction('evt_1', opts, () => 0)).toEqual({ status: 'duplicate' });
    expect((await p.query(`SELECT count(*)::int AS n FROM ${biz}`)).rows[0]).toEqual({ n: 1 });
  });

  it('answers in_progress to a concurrent duplicate instead of blocking on the row', async () => {
    const p = pool();
    const store = postgresStore(p, { table: table('gw_st_txrace') });
    const opts = { leaseMs: 1000, ttlMs: 10_000, now: 1, token: 't' };
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => {};
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const first = store.transaction('evt', opts, async () => {
      entered();
      await gate;
      return 'first';
    });
    await inside;
    expect(await store.transaction('evt', opts, () => 'second')).toEqual({ status: 'in_progress' });
    release();
    expect(await first).toEqual({ status: 'committed', value: 'first' });
    expect(await store.transaction('evt', opts, () => 'third')).toEqual({ status: 'duplicate' });
  });

  it('reports an unreachable database as store_error', async () => {
    const bad = new pg.Pool({
      connectionString: 'postgres://nobody@127.0.0.1:1/none',
      connectionTimeoutMillis: 2000,
    });
    const store = postgresStore(bad, { table: 'gw_unreachable' });
    await expect(store.claim('k', { leaseMs: 1, now: 1, token: 't' })).rejects.toMatchObject({
      code: 'store_error',
    });
    await bad.end();
  });
});
