/**
 * Durability across processes: a restarted receiver still knows processed ids; a receiver killed
 * mid-handler (SIGKILL) leaves a lease that expires so the retry processes the event once; in
 * transactional mode the half-done business write is rolled back; in ack-fast mode an event answered
 * 200 but not yet processed survives the crash and is processed once by the next worker.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { postgresStore } from '../../runtime/stores/postgres.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import type { ClaimResult } from '../../runtime/stores/types.js';
import { missingEnv } from '../support/requires.js';
import { type Child, startChild } from './child.js';
import { adopted, delivery } from './fixtures.js';
import { post } from './http.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-restart-'));
const databaseUrl = process.env['DATABASE_URL'];
const noDatabase = missingEnv('DATABASE_URL', 'the PostgreSQL restart tests');
const suffix = randomUUID().replaceAll('-', '').slice(0, 10);

const children: Child[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.kill('SIGKILL')));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function start(env: Record<string, string>): Promise<Child> {
  const child = await startChild(env);
  children.push(child);
  return child;
}

/** Retries like a provider would (bounded), until the answer is not 409/5xx. */
async function deliverUntilSettled(
  url: string,
  d: ReturnType<typeof delivery>,
): Promise<Record<string, unknown>> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const answer = await post(url, d);
    if (answer.status === 200) return JSON.parse(answer.body) as Record<string, unknown>;
    expect([409, 500, 503]).toContain(answer.status);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('delivery never settled');
}

interface Backend {
  readonly name: string;
  readonly skip: boolean;
  env(test: string): Record<string, string>;
  count(env: Record<string, string>): Promise<number>;
  /**
   * Asks the store, as of `at`, whether the event's claim is held (`in_progress`) — without taking
   * it over when it is. The key is the receiver's: `<contract name>:<event id>`.
   */
  probe(env: Record<string, string>, id: string, at: number): Promise<ClaimResult>;
  teardown?(): Promise<void>;
}

const PROBE = { leaseMs: 1, token: 'probe' };

const sqlite: Backend = {
  name: 'sqlite',
  skip: false,
  env: (test) => ({ STORE: 'sqlite', DB: path.join(dir, `${test}.db`), BIZ: 'adoptions' }),
  async count(env) {
    const db = new Database(env['DB']);
    try {
      return (db.prepare(`SELECT count(*) AS n FROM ${env['BIZ']}`).get() as { n: number }).n;
    } finally {
      db.close();
    }
  },
  async probe(env, id, at) {
    const db = new Database(env['DB']);
    try {
      return await sqliteStore(db).claim(`petstore:${id}`, { ...PROBE, now: at });
    } finally {
      db.close();
    }
  },
};

const tables: string[] = [];
const postgres: Backend = {
  name: 'postgres',
  skip: noDatabase,
  env: (test) => {
    const table = `gw_rs_${test.replaceAll('-', '_')}_${suffix}`;
    tables.push(table, `${table}_biz`);
    return { STORE: 'postgres', DB: databaseUrl ?? '', TABLE: table, BIZ: `${table}_biz` };
  },
  async count(env) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (
        (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${env['BIZ']}`)).rows[0]?.n ?? -1
      );
    } finally {
      await client.end();
    }
  },
  async probe(env, id, at) {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    try {
      return await postgresStore(pool, { table: env['TABLE'] as string }).claim(`petstore:${id}`, {
        ...PROBE,
        now: at,
      });
    } finally {
      await pool.end();
    }
  },
  async teardown() {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    for (const t of tables) await client.query(`DROP TABLE IF EXISTS ${t}, ${t}_queue`);
    await client.end();
  },
};

for (const backend of [sqlite, postgres]) {
  describe.skipIf(backend.skip)(`${backend.name}: across processes`, () => {
    afterAll(async () => {
      await backend.teardown?.();
    });

    it('a restarted receiver still recognises processed ids', async () => {
      const env = backend.env('restart');
      const d = delivery('pet.adopted', adopted());
      const first = await start(env);
      expect(JSON.parse((await post(first.url, d)).body)).toEqual({ status: 'processed' });
      await first.kill();
      const second = await start(env);
      const again = await post(second.url, d);
      expect(again.status).toBe(200);
      expect(JSON.parse(again.body)).toEqual({ status: 'already processed' });
      expect(await backend.count(env)).toBe(1);
    });

    it('SIGKILL mid-handler: the lease expires and the retry processes the event once', async () => {
      const env = { ...backend.env('killed'), LEASE_MS: '1000' };
      const d = delivery('pet.adopted', adopted());
      const doomed = await start({ ...env, HANG: 'before' });
      const pending = post(doomed.url, d).catch((error: unknown) => error);
      await doomed.waitFor('HANDLER_STARTED');
      const killedAt = Date.now();
      await doomed.kill('SIGKILL');
      // The kill landed inside the handler: no answer, no business write, and the claim it had
      // taken is still held at the moment of the kill (a crash leaves a lease, not a done mark).
      expect(doomed.process.signalCode).toBe('SIGKILL');
      expect(await pending).toBeInstanceOf(Error);
      expect(await backend.count(env)).toBe(0);
      expect(await backend.probe(env, d.headers['webhook-id'] as string, killedAt)).toBe('in_progress');
      const next = await start(env);
      expect(await deliverUntilSettled(next.url, d)).toEqual({ status: 'processed' });
      expect(JSON.parse((await post(next.url, d)).body)).toEqual({ status: 'already processed' });
      expect(await backend.count(env)).toBe(1);
    });

    it('transactional: SIGKILL after the business write rolls it back with the dedupe row', async () => {
      const env = { ...backend.env('tx-killed'), TX: '1' };
      const d = delivery('pet.adopted', adopted());
      const doomed = await start({ ...env, HANG: 'after' });
      const pending = post(doomed.url, d).catch((error: unknown) => error);
      await doomed.waitFor('HANDLER_STARTED');
      await doomed.kill('SIGKILL');
      // Killed after its business write, inside the transaction: nothing of it is left.
      expect(doomed.process.signalCode).toBe('SIGKILL');
      expect(await pending).toBeInstanceOf(Error);
      expect(await backend.count(env)).toBe(0);
      const next = await start(env);
      expect(await deliverUntilSettled(next.url, d)).toEqual({ status: 'processed' });
      expect(JSON.parse((await post(next.url, d)).body)).toEqual({ status: 'already processed' });
      expect(await backend.count(env)).toBe(1);
    });

    it('ack-fast: an event answered 200 then lost to a crash is processed once after restart', async () => {
      const env = { ...backend.env('ack-fast'), MODE: 'ack-fast' };
      const d = delivery('pet.adopted', adopted());
      const doomed = await start(env);
      const answer = await post(doomed.url, d);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ status: 'queued' });
      await doomed.kill('SIGKILL');
      expect(doomed.process.signalCode).toBe('SIGKILL');
      expect(await backend.count(env).catch(() => 0)).toBe(0);

      const worker = await start({ ...env, WORKER: '1' });
      for (let i = 0; i < 200 && (await backend.count(env)) === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(await backend.count(env)).toBe(1);
      // A provider retry of the same event is queued and recognised as a duplicate by the worker.
      expect((await post(worker.url, d)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await backend.count(env)).toBe(1);
    });
  });
}
