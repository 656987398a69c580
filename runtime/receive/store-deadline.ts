/**
 * A deadline on every store call. A partitioned database does not fail, it stops answering: without
 * a bound the receiver never answered, and the provider timed out (Discord after 3 s) and retried
 * into the same hang. Each call the receiver makes rejects with `store_error` (503 + Retry-After)
 * after `storeTimeoutMs` (a transaction's own work too: the store applies it, see
 * stores/transaction-deadline.ts). A call cannot be cancelled, so what it does after its deadline is
 * made harmless: a late claim is released, late dequeued rows are handed back uncounted, and a late
 * enqueue or completion simply stands (the sender's retry then finds the event queued or done).
 */
import { storeTimeout } from '../stores/transaction-deadline.js';
import type { EventQueue } from '../stores/types.js';
import type { DedupeStore } from './run-context.js';

/** Default deadline of one store call: well inside the strictest provider timeout (Discord, 3 s). */
export const DEFAULT_STORE_TIMEOUT_MS = 1500;

/** `work`, or a `store_error` after `ms`; `late` receives a value that arrives after the deadline. */
export function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  operation: string,
  late?: (value: T) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      reject(storeTimeout(operation, ms));
    }, ms);
    work.then(
      (value) => {
        if (!expired) {
          clearTimeout(timer);
          resolve(value);
        } else late?.(value);
      },
      (error: unknown) => {
        if (expired) return;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

const ignore = (): void => {};

/**
 * The memory and SQLite stores answer within this process (better-sqlite3 is synchronous: a busy
 * database blocks the event loop, where no timer could fire anyway), so their calls pay no deadline.
 */
export function answersInProcess(store: { readonly name: string }): boolean {
  return store.name === 'memory' || store.name === 'sqlite';
}

/** The store with a deadline on each call; `ms` of 0 or Infinity means none. */
export function storeWithDeadline(store: DedupeStore, ms: number): DedupeStore {
  if (!(ms > 0 && Number.isFinite(ms))) return store;
  const bounded: DedupeStore = {
    claim: (key, options) =>
      withDeadline(store.claim(key, options), ms, 'claim', (result) => {
        // Nobody will run the handler for this claim (the sender was told 503): give it back.
        if (result === 'claimed') store.release(key, { token: options.token }).catch(ignore);
      }),
    complete: (key, options) => withDeadline(store.complete(key, options), ms, 'complete'),
    release: (key, options) => withDeadline(store.release(key, options), ms, 'release'),
  };
  const extend = store.extend?.bind(store);
  if (extend !== undefined) {
    (bounded as { extend: typeof extend }).extend = (key, options) =>
      withDeadline(extend(key, options), ms, 'extend');
  }
  // A transaction bounds its own work: the store gets the deadline in its options (transaction-deadline.ts).
  const transaction = store.transaction?.bind(store);
  if (transaction !== undefined) (bounded as { transaction: typeof transaction }).transaction = transaction;
  return bounded;
}

/**
 * The ack-fast queue with a deadline on each call. Rows a late `dequeue` leased are handed back at
 * once without counting an attempt, so a slow poll neither strands nor burns them.
 */
export function queueWithDeadline(queue: EventQueue, ms: number, now: () => number): EventQueue {
  if (!(ms > 0 && Number.isFinite(ms))) return queue;
  const bounded: EventQueue = {
    enqueue: (key, payload, options) => withDeadline(queue.enqueue(key, payload, options), ms, 'enqueue'),
    dequeue: (options) =>
      withDeadline(queue.dequeue(options), ms, 'dequeue', (entries) => {
        for (const entry of entries) {
          queue
            .retry(entry.seq, { availableAt: now(), error: 'dequeue answered late', countAttempt: false })
            .catch(ignore);
        }
      }),
    ack: (seq) => withDeadline(queue.ack(seq), ms, 'ack'),
    retry: (seq, options) => withDeadline(queue.retry(seq, options), ms, 'retry'),
    fail: (seq, options) => withDeadline(queue.fail(seq, options), ms, 'fail'),
    counts: () => withDeadline(queue.counts(), ms, 'counts'),
  };
  const extend = queue.extend?.bind(queue);
  if (extend !== undefined) {
    (bounded as { extend: typeof extend }).extend = (seq, options) =>
      withDeadline(extend(seq, options), ms, 'extend');
  }
  return bounded;
}
