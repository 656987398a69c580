import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { ClaimedDelivery, CompleteInput } from './outbox.js';
import { sqliteOutbox } from './sqlite-outbox.js';

describe('sqliteOutbox completions', () => {
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
