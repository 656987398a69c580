import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { pruneSqliteOutbox } from '../../runtime/deliver/sqlite-prune.js';
import { isWebhookError } from '../../runtime/errors.js';
import { DAY, ENDPOINTS, expectedAfterPrune, type History, historyArb, T0, unfinished } from './history.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sqlite-prune-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let files = 0;

async function outboxDb(prefix = 'webhook_', incremental = false) {
  const db = new Database(path.join(dir, `o${++files}.db`));
  if (incremental) db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  const outbox = sqliteOutbox(db, { prefix });
  for (const id of ENDPOINTS) {
    await outbox.createEndpoint(
      { id, url: `https://example.com/${id}`, events: ['*'], secret: 'whsec_dGVzdA==' },
      T0,
    );
  }
  return { db, outbox };
}

function insertHistory(db: Database.Database, h: History, p = 'webhook_') {
  const message = db.prepare(
    `INSERT INTO ${p}messages (id, event_type, body, headers, created_at) VALUES (?, 'pet.created', '{}', '{}', ?)`,
  );
  const delivery = db.prepare(
    `INSERT INTO ${p}deliveries (id, message_id, endpoint_id, status, attempts, next_attempt_at, lease_owner, lease_until,
       created_at, updated_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const attempt = db.prepare(
    `INSERT INTO ${p}attempts (id, delivery_id, message_id, endpoint_id, attempt, started_at, duration_ms, outcome)
     VALUES (?, ?, ?, ?, ?, ?, 1, 'failed')`,
  );
  db.transaction(() => {
    for (const m of h.messages) {
      message.run(m.id, m.createdAt);
      for (const d of m.deliveries) {
        const leased = d.status === 'delivering';
        delivery.run(
          d.id,
          m.id,
          d.endpointId,
          d.status,
          d.attempts.length,
          m.createdAt,
          leased ? 'worker' : null,
          leased ? h.now + 1000 : null,
          m.createdAt,
          m.createdAt,
          d.finishedAt,
        );
        for (const [i, a] of d.attempts.entries())
          attempt.run(a.id, d.id, m.id, d.endpointId, i + 1, a.startedAt);
      }
    }
  })();
}

function remaining(db: Database.Database, p = 'webhook_') {
  const col = <T>(sql: string) => (db.prepare(sql).pluck().all() as T[]).sort();
  return {
    messages: col<string>(`SELECT id FROM ${p}messages`),
    deliveries: col<string>(`SELECT id FROM ${p}deliveries`),
    attempts: (db.prepare(`SELECT id FROM ${p}attempts`).pluck().all() as number[]).sort((a, b) => a - b),
  };
}

describe('pruneSqliteOutbox', () => {
  it('deletes exactly the finished history past its window, never a pending or leased delivery', async () => {
    const { db } = await outboxDb();
    await fc.assert(
      fc.asyncProperty(historyArb, async (h) => {
        db.exec('DELETE FROM webhook_attempts; DELETE FROM webhook_deliveries; DELETE FROM webhook_messages');
        insertHistory(db, h);
        const before = remaining(db);
        const result = await pruneSqliteOutbox(db, h);
        const after = remaining(db);
        expect(after).toEqual(expectedAfterPrune(h));
        for (const id of unfinished(h)) expect(after.deliveries).toContain(id);
        expect(result.messages).toBe(before.messages.length - after.messages.length);
        expect(result.deliveries).toBe(before.deliveries.length - after.deliveries.length);
        expect(result.attempts).toBe(before.attempts.length - after.attempts.length);
        // Each transaction deletes at most one batch of messages.
        expect(result.batches).toBeGreaterThanOrEqual(Math.ceil(result.messages / h.batchSize));
      }),
      { numRuns: 150 },
    );
  });

  it('works on the tables of a prefixed outbox and refuses a table name that is not an identifier', async () => {
    const { db } = await outboxDb('shop_');
    const h: History = {
      messages: [
        {
          id: 'm1',
          createdAt: T0,
          deliveries: [
            {
              id: 'dlv_1',
              endpointId: 'ep_a',
              status: 'succeeded',
              finishedAt: T0,
              attempts: [{ id: 1, startedAt: T0 }],
            },
          ],
        },
      ],
      now: T0 + 10 * DAY,
      keepAttemptsMs: DAY,
      keepMessagesMs: DAY,
      batchSize: 10,
    };
    insertHistory(db, h, 'shop_');
    const tables = { messages: 'shop_messages', deliveries: 'shop_deliveries', attempts: 'shop_attempts' };
    expect(await pruneSqliteOutbox(db, { ...h, tables })).toMatchObject({
      messages: 1,
      deliveries: 1,
      attempts: 1,
    });
    await expect(
      pruneSqliteOutbox(db, { ...h, tables: { ...tables, attempts: 'x; DROP TABLE shop_messages' } }),
    ).rejects.toSatisfy((e) => isWebhookError(e) && e.code === 'invalid_config');
  });

  it('runs in batches that give the event loop back, stops on abort, and shrinks an incremental file', async () => {
    const { db } = await outboxDb('webhook_', true);
    const n = 20_000;
    db.exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${n})
      INSERT INTO webhook_messages (id, event_type, body, headers, created_at)
        SELECT 'm' || i, 'pet.created', printf('%.2000c', 'x'), '{}', ${T0} + i FROM c;
      INSERT INTO webhook_deliveries (id, message_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at, finished_at)
        SELECT printf('dlv_%012x%08d', ${T0} + rowid, rowid), id, 'ep_a', 'succeeded', 1, created_at, created_at, created_at, created_at
        FROM webhook_messages;
      INSERT INTO webhook_attempts (delivery_id, message_id, endpoint_id, attempt, started_at, duration_ms, outcome)
        SELECT id, message_id, endpoint_id, 1, created_at, 1, 'succeeded' FROM webhook_deliveries;`);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pages = () => Number(db.pragma('page_count', { simple: true }));
    const full = pages();

    const controller = new AbortController();
    let ticks = 0;
    const ticker = setInterval(() => {
      ticks++;
      if (ticks === 3) controller.abort();
    }, 0);
    const partial = await pruneSqliteOutbox(db, {
      keepAttemptsMs: DAY,
      keepMessagesMs: DAY,
      now: T0 + 10 * DAY,
      batchSize: 100,
      signal: controller.signal,
    });
    clearInterval(ticker);
    // Aborted part-way: some batches ran, each yielding to the timer, and not all rows went. A batch
    // holds at most batchSize messages (fewer once one overran the time budget).
    expect(partial.messages).toBeGreaterThan(0);
    expect(partial.messages).toBeLessThan(n);
    expect(partial.messages).toBeLessThanOrEqual(partial.batches * 100);

    let turns = 0;
    const counter = setInterval(() => turns++, 0);
    const rest = await pruneSqliteOutbox(db, {
      keepAttemptsMs: DAY,
      keepMessagesMs: DAY,
      now: T0 + 10 * DAY,
      batchSize: 500,
    });
    clearInterval(counter);
    expect(partial.messages + rest.messages).toBe(n);
    expect(rest.batches).toBeGreaterThanOrEqual((n - partial.messages) / 500);
    expect(turns).toBeGreaterThan(5);
    expect(rest.vacuumedPages).toBeGreaterThan(0);
    db.pragma('wal_checkpoint(TRUNCATE)');
    expect(pages()).toBeLessThan(full / 5);
    expect(Number(db.pragma('freelist_count', { simple: true }))).toBe(0);
  });
});
