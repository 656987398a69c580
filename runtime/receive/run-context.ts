/**
 * What the three run paths (plain, transactional, ack-fast) share: the store with its deadline, the
 * clock, lease and TTL, how answers and reports are made, and the retry of failed completions.
 */
import { WebhookError } from '../errors.js';
import type { Completions } from './completion.js';
import type { DedupeStore, Ids } from './dedupe-types.js';
import type { AnyHandler, EventParts } from './handler-event.js';
import type { ErrorContext, ReceiveResult } from './types.js';

export type { DedupeStore, Ids };

export interface RunContext {
  readonly store: DedupeStore | undefined;
  readonly now: () => number;
  readonly leaseMs: number;
  readonly ttlMs: number;
  /** A new lease-owner token. */
  readonly token: () => string;
  /** The dedupe key of an event id (`<contract name>:<id>`). */
  readonly keyOf: (id: string) => string;
  /** onError, guarded: a failing hook never changes an answer. */
  readonly report: (error: WebhookError, context: ErrorContext) => void;
  /** The answer to a failure (reported through onError). */
  readonly fail: (error: unknown, ids: Ids) => ReceiveResult;
  /** 409 + Retry-After: another request holds the claim. */
  readonly inProgress: (ids: Ids) => ReceiveResult;
  readonly completions: Completions;
  /**
   * The `storeTimeoutMs` option: a transactional store bounds its own work by it (the in-process
   * SQLite store needs none), and the inline completion retries stop within it.
   */
  readonly storeTimeoutMs: number;
  /** Every handler's `event.signal`: aborted at the deadline of `receiver.close()`. */
  readonly signal: AbortSignal;
  /** Rejects once `signal` is aborted: a plain run races its handler against it. */
  readonly aborted: () => Promise<never>;
}

/**
 * One run path: claim → handler → done, or its transactional equivalent. Never throws. `onRun` is
 * called just before the handler is invoked (ack-fast counts only those runs as attempts).
 */
export type Run = (event: EventParts, handler: AnyHandler, onRun?: () => void) => Promise<ReceiveResult>;

export function storeFailure(error: unknown): WebhookError {
  return error instanceof WebhookError
    ? error
    : new WebhookError('store_error', 'Idempotency store failed', { cause: error });
}
