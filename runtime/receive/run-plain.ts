/**
 * The plain run path: claim the event id → run the handler → mark it done. The claim's lease is
 * renewed while the handler runs; a failed handler releases the claim (the sender's retry runs it
 * again); a completion that cannot be written at once is retried with the claim kept alive, in the
 * background or before answering (the receiver's `completions` part, see completion.ts). Without a store (`dedupe: false`) the handler just runs.
 */
import { WebhookError } from '../errors.js';
import type { Completion } from './completion.js';
import { type AnyHandler, type EventParts, handlerEvent, isThenable } from './handler-event.js';
import { type Renewal, renewLease } from './lease.js';
import { statusResult } from './respond.js';
import { type DedupeStore, type Ids, type Run, type RunContext, storeFailure } from './run-context.js';
import type { ReceiveResult } from './types.js';

export function plainRun(ctx: RunContext): Run {
  const { store, now, leaseMs, ttlMs } = ctx;
  if (store === undefined) return undeduped(ctx);

  /** The handler failed: give the claim back so the sender's retry processes the event again. */
  const release = async (key: string, owner: string, ids: Ids, cause: unknown): Promise<ReceiveResult> => {
    try {
      await store.release(key, { token: owner });
    } catch (releaseError) {
      // The lease still expires on its own; the retry then processes the event.
      ctx.report(storeFailure(releaseError), { outcome: 'failed', ...ids });
    }
    return ctx.fail(new WebhookError('handler_failed', `Handler for "${ids.type}" failed`, { cause }), ids);
  };

  const keepClaim = (key: string, owner: string, ids: Ids, completion: () => Completion | undefined) =>
    renewLease(store as DedupeStore, key, owner, {
      leaseMs,
      now,
      onLost: () => {
        const pending = completion();
        if (pending !== undefined) pending.lost();
        else {
          ctx.report(
            new WebhookError(
              'in_progress',
              'The claim expired while the handler ran; a retry may run it again',
            ),
            { outcome: 'in_progress', ...ids },
          );
        }
      },
      onError: (error) => ctx.report(storeFailure(error), { outcome: 'failed', ...ids }),
    });

  return async (event: EventParts, handler: AnyHandler, onRun?: () => void): Promise<ReceiveResult> => {
    const ids = { id: event.id, type: event.type };
    const key = ctx.keyOf(event.id);
    const owner = ctx.token();
    let claim: 'claimed' | 'duplicate' | 'in_progress';
    try {
      claim = await store.claim(key, { leaseMs, now: now(), token: owner });
    } catch (error) {
      return ctx.fail(storeFailure(error), ids);
    }
    if (claim === 'duplicate') return statusResult(200, 'duplicate', 'already processed', ids);
    if (claim === 'in_progress') return ctx.inProgress(ids);
    onRun?.();
    let completion: Completion | undefined;
    let out: unknown;
    try {
      out = handler(handlerEvent(event, undefined, ctx.signal));
    } catch (cause) {
      return release(key, owner, ids, cause);
    }
    // A sync handler returns before any timer could fire: only a pending one needs its lease renewed.
    let renewal: Renewal | undefined;
    if (isThenable(out)) {
      renewal = keepClaim(key, owner, ids, () => completion);
      try {
        // At the close deadline the claim is released, never completed, even if the handler runs
        // on: the retry then runs the event (a handler that honours `event.signal` stops first).
        await Promise.race([out, ctx.aborted()]);
      } catch (cause) {
        renewal.stop();
        return release(key, owner, ids, cause);
      }
    }
    try {
      await store.complete(key, { ttlMs, now: now() });
      renewal?.stop();
    } catch (error) {
      // The work is done and the sender gets its 2xx; the claim stays held (so a duplicate is 409,
      // not a second run) while the done record is retried (inline retries are awaited here).
      renewal ??= keepClaim(key, owner, ids, () => completion);
      completion = ctx.completions.retry(key, ids, renewal, error);
      await completion.settled;
    }
    return statusResult(200, 'processed', 'processed', ids);
  };
}

/** `dedupe: false`: every delivery runs the handler (at-least-once). */
function undeduped(ctx: RunContext): Run {
  return async (event, handler, onRun) => {
    const ids = { id: event.id, type: event.type };
    onRun?.();
    try {
      const out = handler(handlerEvent(event, undefined, ctx.signal));
      if (isThenable(out)) await Promise.race([out, ctx.aborted()]);
    } catch (cause) {
      return ctx.fail(
        new WebhookError('handler_failed', `Handler for "${event.type}" failed`, { cause }),
        ids,
      );
    }
    return statusResult(200, 'processed', 'processed', ids);
  };
}
