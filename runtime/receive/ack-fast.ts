/**
 * ack-fast mode: the verified event is queued durably and answered at once; a worker later runs it
 * through the same run path (claim guard included) and settles its queue row. Only real handler runs
 * count as attempts: a take that found the event in progress elsewhere, or a store that failed
 * before the handler ran, gives its attempt back.
 */
import type { EventQueue, QueuedEvent } from '../stores/types.js';
import type { AnyHandler } from './handler-event.js';
import type { Check } from './policy.js';
import { statusResult } from './respond.js';
import type { Ids, Run } from './run-context.js';
import type { ReceiveResult, WorkerOptions } from './types.js';
import { defaultBackoff, type QueuedOutcome } from './worker.js';

/** What the ack-fast queue stores: the verified event before validation (re-validated by the worker). */
export interface QueuedPayload {
  readonly v: 1;
  /** Contract event name, or null for an unknown type bound for the catch-all. */
  readonly event: string | null;
  readonly type: string;
  readonly id: string;
  readonly timestamp: number | null;
  readonly data: unknown;
  readonly dataPointer: string;
  readonly headers: Record<string, string>;
}

export interface QueueProcessorDeps {
  readonly queue: EventQueue;
  readonly now: () => number;
  readonly leaseMs: number;
  readonly worker: WorkerOptions;
  readonly run: Run;
  readonly handlerFor: (event: string | undefined) => AnyHandler | undefined;
  readonly check: Check;
  readonly fail: (error: unknown, ids: Ids) => ReceiveResult;
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, 2000);
}

/** One queued event: run it with the claim guard, then ack, retry with backoff, or dead-letter. */
export function queueProcessor(deps: QueueProcessorDeps): (entry: QueuedEvent) => Promise<QueuedOutcome> {
  const { queue: q, now, leaseMs } = deps;
  const maxAttempts = deps.worker.maxAttempts ?? 10;
  const backoff = deps.worker.backoff ?? defaultBackoff;
  return async (entry) => {
    let payload: QueuedPayload;
    try {
      payload = JSON.parse(entry.payload) as QueuedPayload;
    } catch (cause) {
      await q.fail(entry.seq, { error: errorText(cause) });
      return 'failed';
    }
    const ids = { id: payload.id, type: payload.type };
    let result: ReceiveResult;
    let ran = false;
    const handler = deps.handlerFor(payload.event ?? undefined);
    if (handler === undefined) {
      // The handler was removed since the event was queued: nothing to run.
      result = statusResult(200, 'ignored', 'ignored', ids);
    } else {
      try {
        const { data, issues } =
          payload.event === null
            ? { data: payload.data, issues: [] }
            : await deps.check(payload.event, payload.data, payload.dataPointer, ids);
        const timestamp = payload.timestamp === null ? undefined : new Date(payload.timestamp);
        result = await deps.run(
          { ...ids, timestamp, data, headers: payload.headers, issues },
          handler,
          () => {
            ran = true;
          },
        );
      } catch (error) {
        result = deps.fail(error, ids);
      }
    }
    if (result.outcome === 'in_progress') {
      await q.retry(entry.seq, {
        availableAt: now() + leaseMs,
        error: 'in progress elsewhere',
        countAttempt: false,
      });
      return 'done';
    }
    if (result.outcome !== 'failed' && result.outcome !== 'rejected') {
      await q.ack(entry.seq);
      return 'done';
    }
    const error = errorText(result.error?.cause ?? result.error);
    // A payload that no longer validates will not get better with retries.
    if (result.outcome === 'rejected' || (ran && entry.attempts >= maxAttempts)) {
      await q.fail(entry.seq, { error });
    } else {
      await q.retry(entry.seq, {
        availableAt: now() + backoff(entry.attempts),
        error,
        ...(ran ? {} : { countAttempt: false }),
      });
    }
    return 'failed';
  };
}
