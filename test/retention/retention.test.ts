import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { PruneOutboxOptions, PruneOutboxResult } from '../../runtime/deliver/outbox-prune.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { isWebhookError } from '../../runtime/errors.js';
import { startRetention } from '../../runtime/retention.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import { DAY, T0 } from './history.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-retention-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const EMPTY: PruneOutboxResult = { messages: 0, deliveries: 0, attempts: 0, batches: 1, vacuumedPages: 0 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function logs() {
  const errors: { fields: Record<string, unknown>; message: string }[] = [];
  const infos: Record<string, unknown>[] = [];
  return {
    errors,
    infos,
    logger: {
      info: (fields: Record<string, unknown>) => infos.push(fields),
      error: (fields: Record<string, unknown>, message: string) => errors.push({ fields, message }),
    },
  };
}

describe('startRetention', () => {
  it('prunes a real outbox and deletes expired keys on its schedule', async () => {
    const db = new Database(path.join(dir, 'both.db'));
    const outbox = sqliteOutbox(db);
    await outbox.createEndpoint(
      { id: 'ep', url: 'https://example.com/h', events: ['*'], secret: 'whsec_dGVzdA==' },
      T0,
    );
    db.exec(`INSERT INTO webhook_messages (id, event_type, body, created_at) VALUES ('old', 't', '{}', ${T0}), ('new', 't', '{}', ${T0 + 9 * DAY});
      INSERT INTO webhook_deliveries (id, message_id, endpoint_id, status, next_attempt_at, created_at, updated_at, finished_at)
        VALUES ('dlv_1', 'old', 'ep', 'succeeded', ${T0}, ${T0}, ${T0}, ${T0}),
               ('dlv_2', 'new', 'ep', 'pending', ${T0}, ${T0 + 9 * DAY}, ${T0 + 9 * DAY}, NULL);`);
    const store = sqliteStore(db, { table: 'dedupe' });
    await store.claim('gone', { leaseMs: 1000, now: T0, token: 't' });
    await store.claim('live', { leaseMs: 30 * DAY, now: T0, token: 't' });
    const { logger, infos, errors } = logs();
    const retention = startRetention({
      outbox,
      store,
      keepAttempts: DAY,
      keepMessages: 7 * DAY,
      intervalMs: 20,
      firstRunMs: 0,
      now: () => T0 + 10 * DAY,
      logger,
    });
    await sleep(150);
    await retention.stop();
    expect(errors).toEqual([]);
    expect(infos[0]).toMatchObject({ outbox: { messages: 1, deliveries: 1 }, keys: 1 });
    expect(infos.length).toBeGreaterThan(1);
    expect(db.prepare('SELECT id FROM webhook_messages').pluck().all()).toEqual(['new']);
    expect(db.prepare('SELECT key FROM dedupe').pluck().all()).toEqual(['live']);
  });

  it('logs a failing run and keeps its schedule; the store still runs when the outbox fails', async () => {
    const { logger, errors } = logs();
    let calls = 0;
    let cleanups = 0;
    const retention = startRetention({
      outbox: {
        prune: async () => {
          calls++;
          throw new Error('database is locked');
        },
      },
      store: { cleanup: async () => ++cleanups },
      keepAttempts: 0,
      keepMessages: 0,
      intervalMs: 10,
      firstRunMs: 0,
      logger,
    });
    await sleep(100);
    await retention.stop();
    const stoppedAt = calls;
    await sleep(40);
    expect(calls).toBe(stoppedAt);
    expect(calls).toBeGreaterThan(2);
    expect(cleanups).toBe(calls);
    expect(errors[0]?.message).toBe('retention: pruning the outbox failed');
    expect(errors[0]?.fields['err']).toBeInstanceOf(Error);
  });

  it('stop() aborts the run in progress, waits for it, and nothing runs afterwards', async () => {
    let calls = 0;
    let running = 0;
    let overlapped = false;
    let sawAbort = false;
    const prune = async (o: Omit<PruneOutboxOptions, 'tables'>) => {
      calls++;
      running++;
      if (running > 1) overlapped = true;
      while (!o.signal?.aborted) await sleep(5);
      sawAbort = true;
      running--;
      return EMPTY;
    };
    const retention = startRetention({
      outbox: { prune },
      keepAttempts: 0,
      keepMessages: 0,
      intervalMs: 1,
      firstRunMs: 0,
      logger: logs().logger,
    });
    // A run started by hand queues behind the scheduled one instead of overlapping it.
    const manual = retention.runNow();
    await sleep(30);
    await retention.stop();
    expect(sawAbort).toBe(true);
    expect(running).toBe(0);
    await manual;
    const after = calls;
    await sleep(40);
    expect(calls).toBe(after);
    expect(overlapped).toBe(false);
  });

  it('refuses a schedule with nothing to prune or a window that is not a number', () => {
    expect(() => startRetention({ keepAttempts: 1, keepMessages: 1 })).toThrow(/outbox, a store/);
    try {
      startRetention({ store: { cleanup: async () => 0 }, keepAttempts: Number.NaN, keepMessages: 1 });
      expect.unreachable();
    } catch (error) {
      expect(isWebhookError(error) && error.code).toBe('invalid_config');
    }
  });
});
