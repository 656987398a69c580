/**
 * The deadline of a store's transaction (`TransactionOptions.timeoutMs`): it covers the store's own
 * work (connect, BEGIN, the lock, the dedupe row, COMMIT), not the handler's. The clock stops while
 * `fn` runs and starts again after it. A transaction whose deadline passed before `fn` was reached
 * never runs it: it rolls back, as the sender was already told 503. The store carries it (not the
 * receiver) so a receiver that never runs transactions ships none of it.
 */
import { WebhookError } from '../errors.js';
import type { TransactionResult } from './types.js';

export function storeTimeout(operation: string, ms: number): WebhookError {
  return new WebhookError('store_error', `Idempotency store: ${operation} did not answer within ${ms} ms`, {
    details: { operation, timeoutMs: ms },
  });
}

/**
 * `begin(inner)` starts the store's transaction and calls `inner(tx)` where the handler would run;
 * with `ms` of 0, absent or Infinity there is no deadline and `fn` is passed as is.
 */
export function transactionWithDeadline<Tx, T>(
  ms: number | undefined,
  begin: (inner: (tx: Tx) => Promise<T>) => Promise<TransactionResult<T>>,
  fn: (tx: Tx) => T | Promise<T>,
): Promise<TransactionResult<T>> {
  if (!(ms !== undefined && ms > 0 && Number.isFinite(ms))) return begin(async (tx) => fn(tx));
  return new Promise<TransactionResult<T>>((resolve, reject) => {
    let expired = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (operation: string): void => {
      timer = setTimeout(() => {
        expired = true;
        reject(storeTimeout(operation, ms));
      }, ms);
    };
    arm('transaction');
    begin(async (tx) => {
      if (expired) throw storeTimeout('transaction', ms);
      clearTimeout(timer);
      try {
        return await fn(tx);
      } finally {
        if (!expired) arm('commit');
      }
    }).then(
      (result) => {
        clearTimeout(timer);
        if (!expired) resolve(result);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (!expired) reject(error);
      },
    );
  });
}
