/**
 * SIGTERM during a slow handler, inline and ack-fast: the receiver process closes as
 * docs/shutdown.md shows; at the deadline the handler sees `event.signal.aborted` and throws, the
 * idempotency claim is released (not completed) and an ack-fast row handed back uncounted; the
 * vendor's retry (inline) or the next process's worker (ack-fast) then runs the event, and its
 * effect lands exactly once. On SQLite and on PostgreSQL (their stores release claims differently).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { missingEnv } from '../support/requires.js';
import { adopted, delivery } from './fixtures.js';
import { post } from './http.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sigterm-'));
const databaseUrl = process.env['DATABASE_URL'];
const suffix = randomUUID().replaceAll('-', '').slice(0, 10);

interface Child {
  readonly process: ChildProcess;
  readonly url: string;
  readonly lines: string[];
  waitFor(prefix: string): Promise<string>;
  readonly exited: Promise<number | null>;
}

const children: Child[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.process.kill('SIGKILL');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function start(env: Record<string, string>): Promise<Child> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(here, 'fixtures/shutdown-receiver.ts')],
    {
      cwd: root,
      env: { ...process.env, ...env, NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: string[] = [];
  const waiters: { prefix: string; resolve: (line: string) => void }[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      lines.push(line);
      for (const w of [...waiters]) {
        if (line.startsWith(w.prefix)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitFor = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const seen = lines.find((l) => l.startsWith(prefix));
      if (seen !== undefined) return resolve(seen);
      waiters.push({ prefix, resolve });
      void exited.then(() => setTimeout(() => reject(new Error(`exited before "${prefix}": ${stderr}`)), 50));
    });
  const listening = await waitFor('LISTENING');
  const c = {
    process: child,
    url: `http://127.0.0.1:${listening.split(' ')[1]}/hooks`,
    lines,
    waitFor,
    exited,
  };
  children.push(c);
  return c;
}

interface Backend {
  readonly name: string;
  readonly skip: boolean;
  env(test: string): Record<string, string>;
  count(env: Record<string, string>): Promise<number>;
  /** The ack-fast queue's rows: attempts counted and last error. */
  queued(env: Record<string, string>): Promise<unknown[]>;
}

const tables: string[] = [];
const backends: Backend[] = [
  {
    name: 'sqlite',
    skip: false,
    env: (test) => ({ STORE: 'sqlite', DB: path.join(dir, `${test}.db`), TABLE: 'idem', BIZ: 'adoptions' }),
    async count(env) {
      const db = new Database(env['DB']);
      try {
        return (db.prepare(`SELECT count(*) AS n FROM ${env['BIZ']}`).get() as { n: number }).n;
      } finally {
        db.close();
      }
    },
    async queued(env) {
      const db = new Database(env['DB']);
      try {
        return db.prepare(`SELECT attempts, last_error FROM ${env['TABLE']}_queue`).all();
      } finally {
        db.close();
      }
    },
  },
  {
    name: 'postgres',
    skip: missingEnv('DATABASE_URL', 'the PostgreSQL SIGTERM receiver tests'),
    env: (test) => {
      const table = `gw_sigterm_${test.replaceAll('-', '_')}_${suffix}`;
      tables.push(table);
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
    async queued(env) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        return (await client.query(`SELECT attempts, last_error FROM ${env['TABLE']}_queue`)).rows;
      } finally {
        await client.end();
      }
    },
  },
];

afterAll(async () => {
  if (tables.length === 0 || databaseUrl === undefined) return;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  for (const t of tables) await client.query(`DROP TABLE IF EXISTS ${t}, ${t}_queue, ${t}_biz`);
  await client.end();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const backend of backends) {
  describe.skipIf(backend.skip)(`${backend.name}: SIGTERM during a slow handler`, () => {
    it('inline: the handler sees event.signal aborted, answers 5xx, and the retry runs it once', async () => {
      const env = { ...backend.env('inline'), MODE: 'inline' };
      const first = await start({ ...env, SLOW: '1' });
      const d = delivery('pet.adopted', adopted('rex'));
      const answer = post(first.url, d);
      await first.waitFor('HANDLER_STARTED');
      first.process.kill('SIGTERM');
      await first.waitFor('SIGNAL_ABORTED');
      // The vendor sees a failure it retries, not a 2xx for work that never happened.
      expect((await answer).status).toBe(500);
      const closed = JSON.parse((await first.waitFor('CLOSED')).slice('CLOSED '.length));
      expect(closed).toEqual({ drained: 0, released: 1 });
      expect(await first.exited).toBe(0);

      // The claim was released, not completed: the retry (at once, no lease to wait out) runs it.
      const second = await start({ ...env, SLOW: '0' });
      const retried = await post(second.url, d);
      expect(retried.status).toBe(200);
      expect(JSON.parse(retried.body)).toMatchObject({ status: 'processed' });
      expect(JSON.parse((await post(second.url, d)).body)).toMatchObject({ status: 'already processed' });
      expect(await backend.count(env)).toBe(1);
    }, 30_000);

    it('ack-fast: the queued run is aborted and handed back; the next process runs it once', async () => {
      const env = { ...backend.env('ackfast'), MODE: 'ack-fast' };
      const first = await start({ ...env, SLOW: '1' });
      const d = delivery('pet.adopted', adopted('rex'));
      expect((await post(first.url, d)).status).toBe(200);
      await first.waitFor('HANDLER_STARTED');
      first.process.kill('SIGTERM');
      await first.waitFor('SIGNAL_ABORTED');
      const closed = JSON.parse((await first.waitFor('CLOSED')).slice('CLOSED '.length));
      expect(closed).toEqual({ drained: 0, released: 1 });
      expect(await first.exited).toBe(0);
      expect(await backend.count(env)).toBe(0);
      // Handed back uncounted (never a step towards the dead-letter state), due again at once.
      expect(await backend.queued(env)).toEqual([{ attempts: 0, last_error: 'receiver closed mid-run' }]);

      await start({ ...env, SLOW: '0' });
      const deadline = Date.now() + 10_000;
      while ((await backend.count(env)) < 1 && Date.now() < deadline) await sleep(50);
      expect(await backend.count(env)).toBe(1);
      // Nothing runs it a second time.
      await sleep(300);
      expect(await backend.count(env)).toBe(1);
    }, 30_000);
  });
}
