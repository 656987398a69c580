/**
 * Outboxes made before an endpoint's failure streak kept its start gain `failing_since` when they
 * open, and a streak under way then starts its clock at its next failure (never disabling on the
 * count alone because the start is unknown).
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { LOCAL, outboxFixtures, petContract, startServer, virtualClock } from './helpers.js';

const DAY = 24 * 60 * 60 * 1000;

interface Raw {
  /** Drops the column, as in an outbox made before it. */
  dropColumn(): Promise<void>;
  hasColumn(): Promise<boolean>;
  /** Sets the streak of every endpoint to `failures`, with no start recorded. */
  setStreak(failures: number): Promise<void>;
  reopen(): Outbox;
}

function rawOf(name: 'sqlite' | 'postgres', raw: unknown): Raw {
  if (name === 'sqlite') {
    const file = path.join(raw as string, 'outbox.db');
    const run = <T>(f: (db: Database.Database) => T): T => {
      const db = new Database(file);
      try {
        return f(db);
      } finally {
        db.close();
      }
    };
    return {
      dropColumn: async () =>
        void run((db) => db.exec('ALTER TABLE webhook_endpoints DROP COLUMN failing_since')),
      hasColumn: async () =>
        run((db) =>
          (db.prepare('PRAGMA table_info(webhook_endpoints)').all() as { name: string }[]).some(
            (c) => c.name === 'failing_since',
          ),
        ),
      setStreak: async (n) =>
        void run((db) => db.prepare('UPDATE webhook_endpoints SET consecutive_failures = ?').run(n)),
      reopen: () => sqliteOutbox(file),
    };
  }
  const { pool, schema } = raw as { pool: pg.Pool; schema: string };
  const table = `"${schema}".webhook_endpoints`;
  return {
    dropColumn: async () => void (await pool.query(`ALTER TABLE ${table} DROP COLUMN failing_since`)),
    hasColumn: async () =>
      (
        await pool.query(
          `SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'webhook_endpoints' AND column_name = 'failing_since'`,
          [schema],
        )
      ).rowCount === 1,
    setStreak: async (n) => void (await pool.query(`UPDATE ${table} SET consecutive_failures = $1`, [n])),
    reopen: () => postgresOutbox(pool, { schema }),
  };
}

describe.each(outboxFixtures)('failure streak start on an upgraded $name outbox', (fixture) => {
  it.skipIf(fixture.skip)('gains the column, and a streak under way restarts its clock', async () => {
    const made = await fixture.create('streak_upgrade');
    const server = await startServer((_req, res) => {
      res.statusCode = 500;
      res.end();
    });
    const reopened: Outbox[] = [];
    try {
      const raw = rawOf(fixture.name, made.raw);
      const clock = virtualClock();
      const contract = petContract({ kind: 'list', delays: [0] });
      const manager = createEndpointManager({
        outbox: made.outbox,
        contract,
        urlPolicy: LOCAL,
        now: clock.now,
      });
      const { endpoint } = await manager.register({ url: `${server.url}/hooks`, events: ['pet.adopted'] });
      await raw.dropColumn();
      await raw.setStreak(100); // failing for a long time before the upgrade, start unknown
      expect(await raw.hasColumn()).toBe(false);

      const outbox = raw.reopen();
      reopened.push(outbox);
      await outbox.init();
      expect(await raw.hasColumn()).toBe(true);
      const disabled: string[] = [];
      const worker = createWorker({
        outbox,
        contract,
        urlPolicy: LOCAL,
        now: clock.now,
        disableAfterFailures: 3,
        disableAfterFailingForMs: DAY,
        onEndpointDisabled: (_e, reason) => void disabled.push(reason),
      });
      const sender = createSender(contract, { outbox, now: clock.now });
      await sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
      await worker.runOnce();
      expect(disabled).toEqual([]); // 101 failures, but this streak's clock started just now
      clock.advance(DAY);
      await sender.send('pet.adopted', { petId: 'p2', by: 'ann' });
      await worker.runOnce();
      expect(disabled).toEqual(['consecutive_failures']);
      expect(await outbox.getEndpoint(endpoint.id)).toMatchObject({ enabled: false });
    } finally {
      for (const o of reopened) await o.close();
      await server.close();
      await made.cleanup();
    }
  });
});
