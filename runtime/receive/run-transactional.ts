/**
 * The transactional run path (SQLite, PostgreSQL): the handler runs inside the store's transaction
 * with `event.tx`, and the dedupe row commits with its writes or not at all. A handler that throws
 * rolls both back (500, the retry runs it again); a failure of the store itself (a dropped connection,
 * a failed COMMIT, the store deadline) is a 503, even when it surfaced through the handler's queries.
 */
import { WebhookError } from '../errors.js';
import { type AnyHandler, type EventParts, handlerEvent } from './handler-event.js';
import { statusResult } from './respond.js';
import { type Run, type RunContext, storeFailure } from './run-context.js';
import type { ReceiveResult } from './types.js';

export function transactionalRun(ctx: RunContext): Run {
  const { now, leaseMs, ttlMs } = ctx;
  // `checkOptions` refused `transactional: true` without a store with transactions.
  const store = ctx.store!;
  const transaction = store.transaction!.bind(store);
  return async (event: EventParts, handler: AnyHandler, onRun?: () => void): Promise<ReceiveResult> => {
    const ids = { id: event.id, type: event.type };
    let handlerError: { cause: unknown } | undefined;
    try {
      const result = await transaction(
        ctx.keyOf(event.id),
        { leaseMs, ttlMs, now: now(), token: ctx.token(), timeoutMs: ctx.storeTimeoutMs },
        async (tx) => {
          onRun?.();
          try {
            // Not raced against the close deadline: the transaction is the handler's until it
            // settles; a handler that honours `event.signal` throws, and both roll back.
            return await handler(handlerEvent(event, tx, ctx.signal));
          } catch (cause) {
            handlerError = { cause };
            throw cause;
          }
        },
      );
      if (result.status === 'duplicate') return statusResult(200, 'duplicate', 'already processed', ids);
      if (result.status === 'in_progress') return ctx.inProgress(ids);
      return statusResult(200, 'processed', 'processed', ids);
    } catch (error) {
      // The store rethrows the handler's own error; anything else is the store's failure.
      if (handlerError !== undefined && error === handlerError.cause) {
        return ctx.fail(
          new WebhookError('handler_failed', `Handler for "${event.type}" failed; rolled back`, {
            cause: handlerError.cause,
          }),
          ids,
        );
      }
      return ctx.fail(storeFailure(error), ids);
    }
  };
}
