/**
 * The completion batcher: completions arriving together share one write; with a linger window a
 * lone one waits for company, a full batch goes at once, and those queued during a write go next.
 */
import { describe, expect, it } from 'vitest';
import { completionBatcher, type PendingCompletion } from './outbox/completion.js';
import type { CompleteInput } from './outbox.js';

const input = (n: number) => ({ n }) as unknown as CompleteInput;

function recorder() {
  const writes: number[][] = [];
  const flush = async (items: PendingCompletion[]) => {
    writes.push(items.map((item) => (item.input as unknown as { n: number }).n));
    await new Promise((r) => setTimeout(r, 5));
    for (const item of items) item.resolve({ applied: true });
  };
  return { writes, flush };
}

describe('completionBatcher', () => {
  it('without a window, completions of one turn share a write', async () => {
    const { writes, flush } = recorder();
    const complete = completionBatcher(flush);
    await Promise.all([complete(input(1)), complete(input(2)), complete(input(3))]);
    expect(writes).toEqual([[1, 2, 3]]);
  });

  it('a linger window gathers completions that arrive apart; those queued during a write go next', async () => {
    const writes: number[][] = [];
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const complete = completionBatcher(
      async (items) => {
        writes.push(items.map((item) => (item.input as unknown as { n: number }).n));
        await gate;
        for (const item of items) item.resolve({ applied: true });
      },
      { lingerMs: 1000, maxBatch: 100 },
    );
    const first = complete(input(1));
    await new Promise((r) => setTimeout(r, 10));
    const second = complete(input(2));
    while (writes.length === 0) await new Promise((r) => setTimeout(r, 5));
    // 1 and 2 are being written: 3 waits for that write, then goes without lingering again.
    const third = complete(input(3));
    const released = performance.now();
    open();
    await Promise.all([first, second, third]);
    expect(writes).toEqual([[1, 2], [3]]);
    expect(performance.now() - released).toBeLessThan(900);
  });

  it('a full batch is written at once, the rest after it', async () => {
    const { writes, flush } = recorder();
    const complete = completionBatcher(flush, { lingerMs: 10_000, maxBatch: 2 });
    const started = performance.now();
    await Promise.all([1, 2, 3, 4, 5].map((n) => complete(input(n))).slice(0, 4));
    expect(writes.slice(0, 2)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('a batch of flushAt goes without waiting out the linger; one short of it waits', async () => {
    const { writes, flush } = recorder();
    const complete = completionBatcher(flush, { lingerMs: 10_000, maxBatch: 100, flushAt: 3 });
    const started = performance.now();
    await Promise.all([1, 2, 3].map((n) => complete(input(n))));
    expect(writes).toEqual([[1, 2, 3]]);
    expect(performance.now() - started).toBeLessThan(5000);
    const short = completionBatcher(flush, { lingerMs: 300, maxBatch: 100, flushAt: 3 });
    const before = performance.now();
    await Promise.all([4, 5].map((n) => short(input(n))));
    expect(writes[1]).toEqual([4, 5]);
    expect(performance.now() - before).toBeGreaterThanOrEqual(290);
  });
});
