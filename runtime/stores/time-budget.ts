/**
 * Batch sizes held to a time budget. On better-sqlite3 a prune batch runs on the event loop, so its
 * duration is how long a request on the same loop can wait; a fixed row count costs anything from
 * under a millisecond to tens of them depending on the rows, the indexes and the disk. The size
 * shrinks when a batch overran the budget and grows back (up to the configured maximum) when batches
 * run well under it.
 */

/** Milliseconds one synchronous batch may take. */
export const BATCH_BUDGET_MS = 2;

export interface BudgetedSize {
  /** The size for the next batch. */
  readonly size: number;
  /** Report how long the batch of `size` took. */
  took(ms: number): void;
}

export function budgetedSize(
  max: number,
  {
    min = 1,
    start = max,
    budgetMs = BATCH_BUDGET_MS,
  }: { min?: number; start?: number; budgetMs?: number } = {},
): BudgetedSize {
  const floor = Math.max(1, Math.min(min, max));
  let size = Math.max(floor, Math.min(max, Math.floor(start)));
  return {
    get size() {
      return size;
    },
    took(ms: number) {
      if (ms > budgetMs) {
        // Down in proportion to the overrun (by one at least), never below the floor.
        size = Math.max(floor, Math.min(size - 1, Math.floor((size * budgetMs) / ms)));
      } else if (ms < budgetMs / 2) {
        size = Math.min(max, Math.max(size + 1, Math.floor(size * 1.5)));
      }
    },
  };
}
