/**
 * ack-fast mode: the verified event is queued durably and answered at once; a worker later runs it
 * through the same run path (claim guard included) and settles its queue row. Only real handler runs
 * count as attempts: a take that found the event in progress elsewhere, or a store that failed
 * before the handler ran, gives its attempt back. Each run fires the receiver's hooks (`received`,
 * then `duplicate` / `processed` / `rejected`, all with `source: 'queue'`) and, with `tracing`, is a
 * `webhook process` span (children validate, claim, handle) continuing the stored `traceparent`.
 */
import type { DeliverySpan, ReceiveTracing } from '../otel/types.js';
import type { EventQueue, QueuedEvent } from '../stores/types.js';
import type { AnyHandler } from './handler-event.js';
import type { ReceiverHooks } from './hooks.js';
import { reportResult, safely } from './observe.js';
import type { Check, Checked } from './policy.js';
import { statusResult } from './respond.js';
import type { Ids, Run } from './run-context.js';
import { endSpan, phaseOf, tracedHandler } from './trace-phases.js';
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
  readonly hooks?: ReceiverHooks | undefined;
  readonly tracing?: ReceiveTracing | undefined;
  /** The receiver's close signal: a run it cut off is handed back, not counted as an attempt. */
  readonly signal?: AbortSignal;
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
    let ran = false;
    try {
      payload = JSON.parse(entry.payload) as QueuedPayload;
    } catch (cause) {
      await q.fail(entry.seq, { error: errorText(cause) });
      return 'failed';
    }
    const ids = { id: payload.id, type: payload.type };
    const result = await observed(deps, entry, payload, ids, () => {
      ran = true;
    });
    if (result.outcome === 'in_progress') {
      await q.retry(entry.seq, {
        availableAt: now() + leaseMs,
        error: 'in progress elsewhere',
        countAttempt: false,
      });
      return 'done';
    }
    if (result.outcome === 'failed' && deps.signal?.aborted === true) {
      // Cut off by `receiver.close()`: not the event's failure. Due again at once, for the next
      // process, and never a step towards the dead-letter state.
      await q.retry(entry.seq, { availableAt: now(), error: 'receiver closed mid-run', countAttempt: false });
      return 'failed';
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

/** Runs one queued event (validate, claim, handler) inside its hooks and span. Never throws. */
async function observed(
  deps: QueueProcessorDeps,
  entry: QueuedEvent,
  payload: QueuedPayload,
  ids: Ids,
  onRun: () => void,
): Promise<ReceiveResult> {
  const { hooks, tracing } = deps;
  const source = { source: 'queue', attempt: entry.attempts } as const;
  const started = hooks === undefined ? 0 : performance.now();
  safely(hooks?.received, { ...source, ...ids });
  let span: DeliverySpan | undefined;
  try {
    span = (tracing?.startProcessing ?? tracing?.startDelivery)?.call(tracing, payload.headers);
    span?.setAttributes({
      'webhook.id': ids.id,
      'webhook.type': ids.type,
      'webhook.attempt': entry.attempts,
    });
  } catch {
    // A broken tracer must not change the outcome.
  }
  const result = await runQueued(deps, payload, ids, span, onRun);
  if (hooks !== undefined) reportResult(hooks, result, started, source);
  endSpan(span, result);
  return result;
}

async function runQueued(
  deps: QueueProcessorDeps,
  payload: QueuedPayload,
  ids: Ids,
  span: DeliverySpan | undefined,
  onRun: () => void,
): Promise<ReceiveResult> {
  const handler = deps.handlerFor(payload.event ?? undefined);
  // The handler was removed since the event was queued: nothing to run.
  if (handler === undefined) return statusResult(200, 'ignored', 'ignored', ids);
  try {
    let checked: Checked = { data: payload.data, issues: [] };
    if (payload.event !== null) {
      const endValidate = phaseOf(span, 'validate');
      try {
        checked = await deps.check(payload.event, payload.data, payload.dataPointer, ids);
      } catch (error) {
        endValidate(error);
        throw error;
      }
      endValidate();
    }
    const timestamp = payload.timestamp === null ? undefined : new Date(payload.timestamp);
    const parts = { ...ids, timestamp, data: checked.data, headers: payload.headers, issues: checked.issues };
    if (span === undefined) return await deps.run(parts, handler, onRun);
    const endClaim = phaseOf(span, 'claim');
    const result = await deps.run(parts, tracedHandler(handler, span), () => {
      endClaim();
      onRun();
    });
    endClaim();
    return result;
  } catch (error) {
    return deps.fail(error, ids);
  }
}
