/**
 * The sender's process-wide telemetry hooks (`setSendTracing`, `setSendMetrics`) and the guarded calls
 * the sender and the worker make into them. A hook that throws is ignored: telemetry must never stop
 * or fail a delivery.
 */
import type { AttemptSpan, DeliveryOutcome, SendMetrics, SendTracing, TraceAttributes } from './types.js';

let tracing: SendTracing | undefined;
let metrics: SendMetrics | undefined;

/**
 * Traces this process's sends and delivery attempts (outbox workers and `sendNow`): a span per
 * `send()` whose `traceparent` is stored with the message, a span per attempt continuing it, and the
 * attempt's `traceparent` header, so the receiver continues the trace. `undefined` turns it off.
 */
export function setSendTracing(next: SendTracing | undefined): void {
  tracing = next;
}

/** Records this process's attempts and delivery outcomes (see `otelMetrics`). `undefined` turns it off. */
export function setSendMetrics(next: SendMetrics | undefined): void {
  metrics = next;
}

/**
 * Runs `work` (the enqueue) inside a `send()` span; `work` gets `headers` plus the span's
 * `traceparent`/`tracestate`, to store with the message. Without tracing: `work(headers)`.
 */
export async function traceEnqueue<T>(
  headers: Readonly<Record<string, string>>,
  attributes: TraceAttributes,
  work: (headers: Readonly<Record<string, string>>) => Promise<T>,
  describe: (result: T) => TraceAttributes,
): Promise<T> {
  const carrier: Record<string, string> = {};
  let span: ReturnType<NonNullable<SendTracing['startEnqueue']>> | undefined;
  try {
    span = tracing?.startEnqueue?.(carrier, attributes);
  } catch {
    span = undefined;
  }
  if (span === undefined) return work(headers);
  const traced = { ...headers, ...carrier };
  const active = span;
  try {
    const result = await active.run(() => work(traced));
    guard(() => active.end(undefined, describe(result)));
    return result;
  } catch (error) {
    guard(() => active.end(error));
    throw error;
  }
}

/** `attributes` is called only when tracing is on (an attempt without telemetry costs nothing). */
export function startAttemptSpan(
  headers: Record<string, string>,
  attributes: () => TraceAttributes,
  parent: Readonly<Record<string, string>>,
): AttemptSpan | undefined {
  if (tracing === undefined) return undefined;
  try {
    return tracing.startAttempt(headers, attributes(), parent);
  } catch {
    return undefined;
  }
}

export function endAttemptSpan(
  span: AttemptSpan | undefined,
  status: number | undefined,
  error: unknown,
  attributes: TraceAttributes,
): void {
  if (span !== undefined) guard(() => span.end(status, error, attributes));
}

export function metricsOn(): boolean {
  return metrics !== undefined;
}

export function recordAttempt(durationMs: number, attributes: TraceAttributes): void {
  if (metrics !== undefined) guard(() => metrics?.recordAttempt(durationMs, attributes));
}

export function recordDelivery(outcome: DeliveryOutcome, attributes: TraceAttributes): void {
  if (metrics !== undefined) guard(() => metrics?.recordDelivery(outcome, attributes));
}

function guard(call: () => void): void {
  try {
    call();
  } catch {
    // Telemetry is best effort.
  }
}
