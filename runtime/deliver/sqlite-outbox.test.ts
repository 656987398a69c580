import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery, CompleteInput } from './outbox.js';
import { sqliteOutbox } from './sqlite-outbox.js';

const done = (delivery: ClaimedDelivery, ok: boolean): CompleteInput => ({
  delivery,
  now: 1000,
  attempt: {
    startedAt: 1000,
    durationMs: 1,
    statusCode: ok ? 200 : 500,
    outcome: ok ? 'succeeded' : 'failed',
  },
  resolution: ok ? { kind: 'succeeded' } : { kind: 'dead', error: 'http_500' },
});

describe('sqliteOutbox completions', () => {
  it.each([
    [[true, false, true], 0],
    [[false, true, false], 1],
    [[true, true, false, false], 2],
    [[false, false, true, true], 0],
  ])('one committed batch keeps the failure counter in completion order: %j → %i', async (oks, expected) => {
    const outbox = sqliteOutbox(new Database(':memory:'));
    const ep = await outbox.createEndpoint(
      { url: 'https://example.com/h', events: ['*'], secret: 'whsec_x' },
      0,
    );
    for (let i = 0; i < oks.length; i++) {
      await outbox.enqueue({ id: `msg_${i}`, eventType: 'e', body: '{}', headers: {}, createdAt: 0 });
    }
    const claimed = await outbox.claim({ owner: 'w', now: 1000, leaseMs: 30_000, limit: 10 });
    expect(claimed).toHaveLength(oks.length);
    // Queued in the same turn: one transaction, applied in this order.
    const results = await Promise.all(claimed.map((d, i) => outbox.complete(done(d, oks[i] as boolean))));
    expect(results.every((r) => r.applied)).toBe(true);
    expect((await outbox.getEndpoint(ep.id))?.consecutiveFailures).toBe(expected);
  });

  it('a claim takes expired leases first, then due rows in order, skips excluded endpoints, and carries each message', async () => {
    const outbox = sqliteOutbox(new Database(':memory:'));
    const a = await outbox.createEndpoint(
      { url: 'https://a.example/h', events: ['*'], secret: 'whsec_x' },
      0,
    );
    const b = await outbox.createEndpoint(
      { url: 'https://b.example/h', events: ['*'], secret: 'whsec_x' },
      0,
    );
    for (let i = 0; i < 4; i++) {
      await outbox.enqueue({
        id: `msg_${i}`,
        eventType: `e${i}`,
        body: `{"n":${i}}`,
        headers: i === 1 ? { 'x-extra': 'yes' } : {},
        createdAt: 100 + i,
      });
    }
    // msg_0 for both endpoints, leased and left to expire.
    const first = await outbox.claim({ owner: 'w', now: 1000, leaseMs: 100, limit: 2 });
    expect(first.map((d) => [d.messageId, d.endpoint.id]).sort()).toEqual(
      [
        ['msg_0', a.id],
        ['msg_0', b.id],
      ].sort(),
    );
    // Endpoint b excluded: a's expired lease first, then a's due rows in creation order, at most 3.
    const second = await outbox.claim({
      owner: 'w2',
      now: 2000,
      leaseMs: 100,
      limit: 3,
      excludeEndpointIds: [b.id],
    });
    expect(second.map((d) => [d.messageId, d.endpoint.id, d.attempt])).toEqual([
      ['msg_0', a.id, 2],
      ['msg_1', a.id, 1],
      ['msg_2', a.id, 1],
    ]);
    expect(second[1]).toMatchObject({
      eventType: 'e1',
      body: '{"n":1}',
      headers: { 'x-extra': 'yes' },
      messageCreatedAt: 101,
      leaseOwner: 'w2',
      leaseUntil: 2100,
    });
    // Nothing excluded: b's expired lease, then the rest in due order.
    const third = (await outbox.claim({ owner: 'w3', now: 2000, leaseMs: 100, limit: 10 })).map((d) => [
      d.messageId,
      d.endpoint.id,
    ]);
    expect(third.slice(0, 3)).toEqual([
      ['msg_0', b.id],
      ['msg_1', b.id],
      ['msg_2', b.id],
    ]);
    // msg_3 is due at the same time for both endpoints: either order.
    expect(third.slice(3).sort()).toEqual(
      [
        ['msg_3', a.id],
        ['msg_3', b.id],
      ].sort(),
    );
    expect(await outbox.claim({ owner: 'w3', now: 2000, leaseMs: 100, limit: 10 })).toEqual([]);
    expect(await outbox.claim({ owner: 'w3', now: 5000, leaseMs: 100, limit: 0 })).toEqual([]);
  });

  it('delivery ids lead with the creation time, so they sort by it', async () => {
    const outbox = sqliteOutbox(new Database(':memory:'));
    await outbox.createEndpoint({ url: 'https://example.com/h', events: ['*'], secret: 'whsec_x' }, 0);
    const a = await outbox.enqueue({ id: 'msg_a', eventType: 'e', body: '{}', headers: {}, createdAt: 2000 });
    const b = await outbox.enqueue({ id: 'msg_b', eventType: 'e', body: '{}', headers: {}, createdAt: 1000 });
    const [idA] = a.deliveryIds;
    const [idB] = b.deliveryIds;
    expect(idA).toMatch(/^dlv_[0-9a-f]{24}$/);
    expect(idA?.slice(4, 16)).toBe((2000).toString(16).padStart(12, '0'));
    expect(String(idB) < String(idA)).toBe(true);
  });
});

describe('sqliteOutbox on one file from two connections', () => {
  it('claims are exclusive and a completion is fenced by its claim', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sqlite-fence-'));
    const file = path.join(dir, 'outbox.db');
    const a = sqliteOutbox(file);
    const b = sqliteOutbox(file);
    try {
      await a.createEndpoint({ url: 'https://example.com/h', events: ['*'], secret: 'whsec_x' }, 0);
      for (let i = 0; i < 4; i++) {
        await a.enqueue({ id: `msg_${i}`, eventType: 'e', body: '{}', headers: {}, createdAt: 0 });
      }
      const fromA = await a.claim({ owner: 'a', now: 1000, leaseMs: 1000, limit: 2 });
      const fromB = await b.claim({ owner: 'b', now: 1000, leaseMs: 1000, limit: 10 });
      expect(fromA).toHaveLength(2);
      expect(fromB).toHaveLength(2);
      expect(fromA.map((d) => d.id).filter((id) => fromB.some((d) => d.id === id))).toEqual([]);
      expect(fromA[0]?.leaseUntil).toBe(2000);

      // a's lease ends; b takes the delivery over (attempt 2) while a's attempt is still running.
      const [mine] = fromA as [ClaimedDelivery];
      const [taken] = await b.claim({ owner: 'b', now: 2000, leaseMs: 1000, limit: 1 });
      expect(taken).toMatchObject({ id: mine.id, attempt: 2, leaseOwner: 'b' });
      // a's late verdict is recorded as history but does not touch b's claim…
      const late = await a.complete({ ...done(mine, false), now: 2100 });
      expect(late.applied).toBe(false);
      expect(await b.getDelivery(mine.id)).toMatchObject({
        status: 'delivering',
        leaseOwner: 'b',
        attempts: 2,
      });
      // …nor does a's release; b's verdict applies.
      await a.release(mine, 2100);
      expect(await b.getDelivery(mine.id)).toMatchObject({ status: 'delivering', leaseOwner: 'b' });
      expect((await b.complete(done(taken as ClaimedDelivery, true))).applied).toBe(true);
      expect(await a.getDelivery(mine.id)).toMatchObject({ status: 'succeeded', attempts: 2 });
      // The same owner re-claiming its own expired lease is a new claim too: the old one is fenced.
      const [again] = await a.claim({ owner: 'a', now: 2000, leaseMs: 1000, limit: 1 });
      expect(again?.attempt).toBe(2);
      const reclaimed = (await a.claim({ owner: 'a', now: 3000, leaseMs: 1000, limit: 10 })).find(
        (d) => d.id === again?.id,
      );
      expect(reclaimed).toMatchObject({ id: again?.id, attempt: 3 });
      expect((await a.complete(done(again as ClaimedDelivery, true))).applied).toBe(false);
      expect((await a.complete(done(reclaimed as ClaimedDelivery, true))).applied).toBe(true);
      expect(await a.listAttempts({ deliveryId: mine.id })).toHaveLength(2);
    } finally {
      await a.close();
      await b.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sqliteOutbox schema', () => {
  it('a database made by the previous schema opens, loses the old endpoint index, gains ordering keys and keeps working', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sqlite-schema-'));
    const file = path.join(dir, 'outbox.db');
    const indexes = (db: Database.Database) =>
      (
        db
          .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'webhook_deliveries'`)
          .all() as { name: string }[]
      )
        .map((r) => r.name)
        .filter((n) => !n.startsWith('sqlite_autoindex'))
        .sort();
    try {
      // The previous schema: same tables, (endpoint_id, status, finished_at) instead of the new indexes.
      const before = new Database(file);
      const old = sqliteOutbox(before);
      const ep = await old.createEndpoint(
        { url: 'https://example.com/h', events: ['*'], secret: 'whsec_x' },
        0,
      );
      before.exec(`DROP INDEX webhook_deliveries_by_endpoint; DROP INDEX webhook_deliveries_dead;
        CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, status, finished_at);`);
      for (let i = 0; i < 2; i++) {
        await old.enqueue({ id: `msg_${i}`, eventType: 'e', body: '{}', headers: {}, createdAt: 0 });
      }
      // And no ordering keys yet.
      before.exec(
        `DROP INDEX webhook_deliveries_ordering; ALTER TABLE webhook_deliveries DROP COLUMN ordering_key;`,
      );
      expect(indexes(before)).toEqual([
        'webhook_deliveries_endpoint',
        'webhook_deliveries_leased',
        'webhook_deliveries_pending',
      ]);
      before.close();

      const outbox = sqliteOutbox(file);
      const claimed = await outbox.claim({ owner: 'w', now: 1000, leaseMs: 30_000, limit: 10 });
      expect(claimed).toHaveLength(2);
      const [ok, dead] = claimed as [ClaimedDelivery, ClaimedDelivery];
      expect((await outbox.complete(done(ok, true))).applied).toBe(true);
      expect((await outbox.complete(done(dead, false))).applied).toBe(true);
      expect(await outbox.redeliver({ endpointId: ep.id, from: 0, to: 2000 }, 3000)).toBe(1);
      expect(await outbox.getDelivery(dead.id)).toMatchObject({ status: 'pending', attempts: 0 });
      expect(await outbox.listDeliveries({ endpointId: ep.id })).toHaveLength(2);
      expect(await outbox.deleteEndpoint(ep.id)).toBe(true);
      await outbox.close();

      const after = new Database(file);
      expect(indexes(after)).toEqual([
        'webhook_deliveries_by_endpoint',
        'webhook_deliveries_dead',
        'webhook_deliveries_leased',
        'webhook_deliveries_ordering',
        'webhook_deliveries_pending',
      ]);
      // The dead-letter redelivery by endpoint reads the partial index.
      const plan = after
        .prepare(
          `EXPLAIN QUERY PLAN SELECT id FROM webhook_deliveries
           WHERE endpoint_id = ? AND status = 'dead' AND finished_at >= ? AND finished_at < ?`,
        )
        .all('x', 0, 1) as { detail: string }[];
      expect(plan.map((r) => r.detail).join(' ')).toContain('webhook_deliveries_dead');
      after.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
