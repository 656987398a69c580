/**
 * The idempotency store interface shared by every backend (memory, SQLite, PostgreSQL, Redis), and
 * the durable queue used by the receiver's ack-fast mode.
 *
 * A key moves through: absent → `inflight` (a lease owned by one token, until `now + leaseMs`) →
 * `done` (until `now + ttlMs`). An expired lease or an expired `done` row counts as absent, so a
 * crashed handler is retried after its lease and the TTL bounds the store's size.
 */

export type ClaimResult = 'claimed' | 'duplicate' | 'in_progress';

export interface ClaimOptions {
  /** Lease length: after this the claim may be taken over (the holder is presumed dead). */
  readonly leaseMs: number;
  /** Milliseconds since the epoch (injected clock). */
  readonly now: number;
  /** Owner of the lease; only the owner may `release` it. */
  readonly token: string;
}

export interface CompleteOptions {
  /** How long the key stays `done` (duplicates are recognised for this long). */
  readonly ttlMs: number;
  readonly now: number;
}

export interface ReleaseOptions {
  /** The token that claimed the key; a release by anyone else (a lease taken over) is a no-op. */
  readonly token: string;
}

export interface CleanupOptions {
  /** Keys deleted (SQLite: examined) per statement. Default 1000. */
  readonly batchSize?: number;
  /** Stops between batches when aborted; what was deleted stays deleted. */
  readonly signal?: AbortSignal;
  /** Pause between batches, ms. Default 0 (one event-loop turn). */
  readonly pauseMs?: number;
}

export interface TransactionOptions extends ClaimOptions, CompleteOptions {
  /**
   * Deadline (ms) on the store's own work (connect, BEGIN, lock, the dedupe row, COMMIT), not on
   * `fn`'s: past it the call rejects with `store_error`, and a transaction that had not reached `fn`
   * rolls back without running it. 0 or absent: none. The receiver passes its `storeTimeoutMs`; a
   * store over the network applies it with `transactionWithDeadline`, one that answers in process
   * (SQLite) has no use for it.
   */
  readonly timeoutMs?: number;
}

/** Result of `transaction`: the handler's value when it ran, or why it did not run. */
export type TransactionResult<T> =
  | { readonly status: 'committed'; readonly value: T }
  | { readonly status: 'duplicate' }
  | { readonly status: 'in_progress' };

export interface IdempotencyStore<Tx = never> {
  /** Backend name for logs and benchmarks: `memory`, `sqlite`, `postgres`, `redis`. */
  readonly name: string;
  /** Default `done` TTL of this store (e.g. a Redis preset per provider); the receiver's `ttlMs` wins. */
  readonly ttlMs?: number;
  /** Atomically claim `key`: exactly one concurrent caller gets `claimed`. */
  claim(key: string, options: ClaimOptions): Promise<ClaimResult>;
  /** Mark `key` processed; later claims answer `duplicate` until the TTL passes. */
  complete(key: string, options: CompleteOptions): Promise<void>;
  /**
   * Renew a lease the caller still owns (long handlers): `false` when the claim was lost (expired and
   * taken over, or completed). The receiver renews every `leaseMs / 3` while a handler runs.
   */
  extend?(key: string, options: ClaimOptions): Promise<boolean>;
  /** Give up a claim (the handler failed) so the sender's retry processes the event again. */
  release(key: string, options: ReleaseOptions): Promise<void>;
  /**
   * Delete expired keys in bounded batches, yielding between them (so claims keep flowing while it
   * runs); returns how many were removed (0 where the backend expires keys itself). SQLite also hands
   * the freed pages back to the file system when the file uses incremental auto-vacuum.
   */
  cleanup(now: number, options?: CleanupOptions): Promise<number>;
  /**
   * Transactional mode: run `fn` inside a database transaction that also writes the `done` row, so
   * the business write and the dedupe key commit together or not at all. `fn` is not called for a
   * duplicate or an event another transaction is processing.
   */
  transaction?<T>(
    key: string,
    options: TransactionOptions,
    fn: (tx: Tx) => T | Promise<T>,
  ): Promise<TransactionResult<T>>;
  /** Durable queue for ack-fast mode, where the backend has one. */
  readonly queue?: EventQueue;
  /** Release what the store opened itself (a database it opened from a path); never the user's driver. */
  close?(): Promise<void>;
}

/** A store with transactional mode (SQLite, PostgreSQL). */
export interface TransactionalStore<Tx> extends IdempotencyStore<Tx> {
  transaction<T>(
    key: string,
    options: TransactionOptions,
    fn: (tx: Tx) => T | Promise<T>,
  ): Promise<TransactionResult<T>>;
}

/** One queued event as a worker sees it. */
export interface QueuedEvent {
  /** Queue row id (opaque). */
  readonly seq: string;
  /** Idempotency key of the event. */
  readonly key: string;
  /** Serialised event (JSON text written by the receiver). */
  readonly payload: string;
  /** Processing attempts so far, including the current one (takes that did not run the handler excepted). */
  readonly attempts: number;
}

export interface DequeueOptions {
  readonly now: number;
  /** How long the worker owns the dequeued rows before another worker may take them. */
  readonly leaseMs: number;
  readonly limit: number;
}

export interface QueueLeaseOptions {
  readonly now: number;
  readonly leaseMs: number;
  /** The row's `attempts` as this worker dequeued it. */
  readonly attempts: number;
}

export interface QueueRetryOptions {
  readonly availableAt: number;
  readonly error: string;
  /** Default true; false when this take did not run the handler. */
  readonly countAttempt?: boolean;
}

export interface EventQueue {
  /** Persist an event; `false` when the same key is already queued (a retried delivery). */
  enqueue(key: string, payload: string, options: { readonly now: number }): Promise<boolean>;
  /** Take up to `limit` due rows, leasing them to the caller; each take counts one attempt. */
  dequeue(options: DequeueOptions): Promise<QueuedEvent[]>;
  /**
   * Renew the lease of a row while its handler runs (every leaseMs / 3), fenced on the take
   * (`attempts` as dequeued): `false` when the row was settled or taken again since.
   */
  extend?(seq: string, options: QueueLeaseOptions): Promise<boolean>;
  /** The event is handled (or was a duplicate): remove it. */
  ack(seq: string): Promise<void>;
  /**
   * Processing failed: make the row due again at `availableAt`. `countAttempt: false` gives back the
   * attempt its take counted, when the handler never ran (another request held the claim, the store
   * failed before it), so only real handler runs count towards a dead letter.
   */
  retry(seq: string, options: QueueRetryOptions): Promise<void>;
  /** Give up: keep the row as `failed` (a dead letter) with the last error. */
  fail(seq: string, options: { readonly error: string }): Promise<void>;
  /** Rows by state, for monitoring and tests. */
  counts(): Promise<{ readonly pending: number; readonly failed: number }>;
}

/** Default `done` TTL: 7 days, longer than every common provider's retry window. */
export const DEFAULT_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Default `cleanup` batch: keys per statement. */
export const DEFAULT_CLEANUP_BATCH = 1000;
/** Default lease: 30 s. */
export const DEFAULT_LEASE_MS = 30_000;
