/**
 * The receiver's options checked once, when it is created (the `invalid_config` answers), and its
 * lease-owner tokens.
 */

import type { EventMapBase } from '../contract.js';
import { WebhookError } from '../errors.js';
import type { IdempotencyStore } from '../stores/types.js';
import type { AnyHandler } from './handler-event.js';
import { DEFAULT_STORE_TIMEOUT_MS } from './store-deadline.js';
import type { CommonReceiverOptions, ReceiveObserver } from './types.js';

/**
 * Loose view of the options: the common ones as declared, the dedupe and handler unions flattened
 * (those only matter for type checking the caller).
 */
export interface LooseOptions extends CommonReceiverOptions<EventMapBase> {
  readonly store?: IdempotencyStore<unknown>;
  readonly dedupe?: boolean;
  readonly transactional?: boolean;
  readonly handlers?: { readonly [event: string]: AnyHandler | undefined };
  readonly unknownEvent?: 'ignore' | 'reject' | AnyHandler;
  readonly onUnknown?: AnyHandler;
  readonly preHandle?: AnyHandler;
}

/**
 * Lease-owner tokens: unique per claim across processes and restarts (a random UUID per receiver plus
 * a counter), without a random UUID per delivery.
 */
export function ownerTokens(): () => string {
  // Drawn on first use: Workers forbid random values at module scope, where receivers are created.
  let prefix: string | undefined;
  let n = 0;
  return () => {
    prefix ??= `${globalThis.crypto.randomUUID()}.`;
    return prefix + (++n).toString(36);
  };
}

/** The `invalid_config` checks of the options alone; returns the store deadline (ms). */
export function checkOptions(o: LooseOptions, store: IdempotencyStore<unknown> | undefined): number {
  const storeTimeoutMs = o.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  if (!(storeTimeoutMs >= 0)) {
    throw new WebhookError(
      'invalid_config',
      `storeTimeoutMs must be a number of ms >= 0 (got ${storeTimeoutMs})`,
    );
  }

  if (o.dedupe !== false && store === undefined) {
    throw new WebhookError(
      'invalid_config',
      // A newcomer's first error: name the stores there are and the opt-out, so the fix is in the message.
      'createReceiver needs an idempotency `store`: sqliteStore(file), postgresStore(pool), redisStore(client) or ' +
        'memoryStore() (tests) from @gen-webhooks/runtime; or pass `dedupe: false` to process every delivery, ' +
        'duplicates included',
    );
  }
  if (o.transactional === true && store?.transaction === undefined) {
    throw new WebhookError(
      'invalid_config',
      `transactional: true needs a store with transactions (got ${store?.name})`,
    );
  }
  return storeTimeoutMs;
}

/**
 * The observers of the `hooks` and `tracing` options, hooks first (`received` fires before anything
 * else). Each carries its own code (`receiverHooks`, `receiveTracing`, `otelTracing`); a plain
 * object is refused.
 */
export function observersOf(
  hooks: ReceiveObserver | undefined,
  tracing: ReceiveObserver | undefined,
): ReceiveObserver[] {
  const observers = [hooks, tracing].filter((x) => x !== undefined);
  if (observers.some((x) => typeof x.start !== 'function')) {
    throw new WebhookError(
      'invalid_config',
      'hooks take receiverHooks({ … }); tracing takes otelTracing(api) or receiveTracing(tracer)',
    );
  }
  return observers;
}
