/**
 * The loop every store's `cleanup` runs: delete one bounded batch, give the event loop back, repeat
 * until a batch comes back short or the signal aborts. One statement never holds a lock (or, on
 * better-sqlite3, the event loop) for longer than one batch takes.
 */
import { WebhookError } from '../errors.js';
import { type CleanupOptions, DEFAULT_CLEANUP_BATCH } from './types.js';

export function batchSizeOf(options: CleanupOptions | undefined, who: string): number {
  const size = options?.batchSize ?? DEFAULT_CLEANUP_BATCH;
  if (!Number.isInteger(size) || size < 1) {
    throw new WebhookError('invalid_argument', `${who}: batchSize must be a positive integer, got ${size}`);
  }
  return size;
}

const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;

/** Gives the event loop back: one turn (I/O callbacks run first), or `ms`. */
export function yieldTurn(ms = 0): Promise<void> {
  return new Promise((resolve) => {
    if (ms > 0 || immediate === undefined) setTimeout(resolve, ms);
    else immediate(resolve);
  });
}

/**
 * Runs `batch` until it reports it is done (`more: false`); returns the total removed.
 * `batch` returns how many it removed and whether there may be more.
 */
export async function inBatches(
  options: CleanupOptions | undefined,
  batch: () => Promise<{ readonly removed: number; readonly more: boolean }>,
): Promise<number> {
  let total = 0;
  for (;;) {
    if (options?.signal?.aborted) return total;
    const { removed, more } = await batch();
    total += removed;
    if (!more) return total;
    await yieldTurn(options?.pauseMs);
  }
}
