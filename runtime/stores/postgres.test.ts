import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { missingEnv } from '../../test/support/requires.js';
import { postgresSchema, postgresStore } from './postgres.js';
import { runStoreSuite } from './store-suite.js';

const url = process.env['DATABASE_URL'];
const noDatabase = missingEnv('DATABASE_URL', 'the PostgreSQL store tests');
const repoRoot = path.resolve(import.meta.dirname, '../..');

const suffix = randomUUID().replaceAll('-', '').slice(0, 12);
const pools: pg.Pool[] = [];
const tables: string[] = [];
const schemas: string[] = [];
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
  if (noDatabase) return;
  const p = new pg.Pool({ connectionString: url, max: 1 });
  for (const t of tables) await p.query(`DROP TABLE IF EXISTS ${t}, ${t}_queue`);
  for (const s of schemas) await p.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await p.end();
  await Promise.all(pools.map((p) => p.end()));
});

runStoreSuite('postgres (Pool)', {
  transactions: true,
  queue: true,
  skip: noDatabase,
  create: () => postgresStore(pool(), { table: table('gw_st_pool') }),
});
runStoreSuite('postgres (Client)', {
  transactions: true,
  queue: true,
  skip: noDatabase,
  create: async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const t = table('gw_st_client');
    return { ...postgresStore(client, { table: t }), close: () => client.end() };
  },
});

interface Migrator {
  readonly pid: number;
  readonly backend: number;
  go(): void;
  readonly exit: Promise<{ code: number | null; output: string }>;
}

/** A child process (test/stores/pg-migrate-child.ts) connected and waiting for `go()` to migrate. */
function migrator(schema: string, t: string): Promise<Migrator> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'test/stores/pg-migrate-child.ts'), schema, t],
    { cwd: repoRoot, env: process.env, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exit = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, output })),
  );
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /READY (\d+) (\d+)\n/.exec(output);
      if (ready !== null)
        resolve({
          pid: Number(ready[1]),
          backend: Number(ready[2]),
          go: () => child.stdin.end('GO\n'),
          exit,
        });
    });
    void exit.then(({ code }) =>
      reject(new Error(`migration child exited (${code}) before READY: ${output}`)),
    );
  });
}

/** Starts `n` processes, lets them all migrate at once, and returns their exits. */
async function migrateFromProcesses(n: number, schema: string, t: string) {
  const children = await Promise.all(Array.from({ length: n }, () => migrator(schema, t)));
  for (const child of children) child.go();
  return { children, exits: await Promise.all(children.map((child) => child.exit)) };
}

/** What the migration created in `schema`, read from the catalog. */
async function catalog(p: pg.Pool, schema: string) {
  const rows = async (sql: string) => (await p.query(sql, [schema])).rows;
  return {
    schemas: await rows('SELECT nspname FROM pg_namespace WHERE nspname = $1'),
    tables: await rows(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
    ),
    columns: await rows(
      `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = $1 ORDER BY table_name, ordinal_position`,
    ),
    indexes: await rows(
      'SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname',
    ),
    checks: await rows(
      `SELECT conrelid::regclass::text AS relation, contype, pg_get_constraintdef(oid) AS definition
       FROM pg_constraint WHERE connamespace = $1::regnamespace ORDER BY conname`,
    ),
    sequences: await rows(
      'SELECT sequence_name FROM information_schema.sequences WHERE sequence_schema = $1',
    ),
  };
}

describe('postgresStore names', () => {
  it('refuses table and schema names that are not plain identifiers (they are written into SQL)', () => {
    const lazy = new pg.Pool({ connectionString: 'postgres://nobody@127.0.0.1:1/none' });
    for (const options of [
      { table: 'idem; DROP TABLE users' },
      { table: 'a"b' },
      { schema: 'public.x' },
      { schema: '' },
    ]) {
      expect(() => postgresStore(lazy, options)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
      expect(() => postgresSchema(options)).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    }
    void lazy.end();
  });
});

describe.skipIf(noDatabase)('postgresStore', () => {
  it('migrates idempotently from many processes at once', { timeout: 120_000 }, async () => {
    const schema = `gw_mig_${suffix}`;
    schemas.push(schema);
    const t = 'gw_st_migrate';
    const p = pool();

    // Eight processes, eight connections, one fresh schema: CREATE … IF NOT EXISTS alone collides in
    // the catalog (unique violations on pg_namespace / pg_type) when the statements race.
    const first = await migrateFromProcesses(8, schema, t);
    expect(first.exits.map((e) => e.code === 0 || e.output)).toEqual(new Array(8).fill(true));
    expect(first.exits.every((e) => e.output.includes('DONE'))).toBe(true);
    expect(new Set(first.children.map((c) => c.pid)).size).toBe(8);
    expect(new Set(first.children.map((c) => c.backend)).size).toBe(8);

    const state = await catalog(p, schema);
    expect(state.schemas).toEqual([{ nspname: schema }]);
    expect(state.tables).toEqual([{ table_name: t }, { table_name: `${t}_queue` }]);
    expect(
      state.columns.map((c) => `${c.table_name}.${c.column_name} ${c.data_type} ${c.is_nullable}`),
    ).toEqual([
      `${t}.key text NO`,
      `${t}.state text NO`,
      `${t}.token text YES`,
      `${t}.expires_at bigint NO`,
      `${t}_queue.seq bigint NO`,
      `${t}_queue.key text NO`,
      `${t}_queue.payload text NO`,
      `${t}_queue.status text NO`,
      `${t}_queue.attempts integer NO`,
      `${t}_queue.available_at bigint NO`,
      `${t}_queue.locked_until bigint NO`,
      `${t}_queue.last_error text YES`,
      `${t}_queue.created_at bigint NO`,
    ]);
    expect(state.indexes.map((i) => i.indexname)).toEqual([
      `${t}_expires_at`,
      `${t}_pkey`,
      `${t}_queue_due`,
      `${t}_queue_key_key`,
      `${t}_queue_pkey`,
    ]);
    expect(state.indexes.find((i) => i.indexname === `${t}_queue_due`)?.indexdef).toContain(
      '(status, available_at)',
    );
    expect(
      state.checks
        .filter((c) => c.contype === 'c')
        .map((c) => `${c.relation}: ${c.definition}`)
        .sort(),
    ).toEqual([
      `${schema}.${t}: CHECK ((state = ANY (ARRAY['inflight'::text, 'done'::text])))`,
      `${schema}.${t}_queue: CHECK ((status = ANY (ARRAY['pending'::text, 'failed'::text])))`,
    ]);
    expect(state.sequences).toEqual([{ sequence_name: `${t}_queue_seq_seq` }]);

    // Again, over the existing tables: every process succeeds and nothing changes.
    const again = await migrateFromProcesses(3, schema, t);
    expect(again.exits.map((e) => e.code === 0 || e.output)).toEqual([true, true, true]);
    expect(await catalog(p, schema)).toEqual(state);

    // And the tables are the store's: a claim round trip works on them.
    const store = postgresStore(p, { schema, table: t, autoMigrate: false });
    const opts = { leaseMs: 1000, now: 1, token: 't' };
    expect(await store.claim('k', opts)).toBe('claimed');
    await store.complete('k', { ttlMs: 10_000, now: 2 });
    expect(await store.claim('k', { ...opts, now: 3 })).toBe('duplicate');
    expect(await store.queue.enqueue('q', '{}', { now: 1 })).toBe(true);
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
