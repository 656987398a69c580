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
