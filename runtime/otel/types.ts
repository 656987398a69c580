/**
 * What the receiver and the sender need from a tracer, kept structural: the runtime never imports
 * `@opentelemetry/api` (an optional peer). `otelTracing(api)` builds these from the real API.
 */
import type { HeadersInput } from '../signing/scheme.js';

export type TraceAttributes = Readonly<Record<string, string | number | boolean>>;

/** The steps of one delivery that get a child span. */
export type DeliveryPhase = 'verify' | 'validate' | 'claim' | 'handle';

export interface PhaseSpan {
  /** Ends the phase; an error marks it failed. */
  end(error?: unknown): void;
}

export interface DeliverySpan {
  phase(name: DeliveryPhase): PhaseSpan;
  setAttributes(attributes: TraceAttributes): void;
  /** Ends the delivery span with its outcome (`processed`, `rejected`, …) and error code, if any. */
  end(
    outcome: string,
    error?: { readonly code: string; readonly status: number; readonly message: string },
  ): void;
}

/** Receiver side: one span per delivery, continuing the sender's W3C `traceparent` when present. */
export interface ReceiveTracing {
  startDelivery(headers: HeadersInput): DeliverySpan;
  /**
   * The ack-fast worker running a queued event (its stored headers carry the sender's
   * `traceparent`). Without it the worker uses `startDelivery`.
   */
  startProcessing?(headers: HeadersInput): DeliverySpan;
}

/** One attempt's span; `attributes` add what is known only at the end (outcome, error type). */
export interface AttemptSpan {
  end(status: number | undefined, error?: unknown, attributes?: TraceAttributes): void;
}

/** The span of one `send()`: its context travels with the message (see `SendTracing.startEnqueue`). */
export interface EnqueueSpan {
  /** Runs the enqueue inside the span's context (database instrumentation nests under it). */
  run<T>(work: () => T): T;
  end(error?: unknown, attributes?: TraceAttributes): void;
}

/**
 * Sender side: one span per attempt; `headers` gets `traceparent` (and `tracestate`). `parent` is
 * the carrier the attempt continues: the message's stored headers, whose `traceparent` was captured
 * at enqueue, so an outbox attempt joins the trace of its `send()` call, not the worker's context.
 */
export interface SendTracing {
  startAttempt(
    headers: Record<string, string>,
    attributes: TraceAttributes,
    parent?: Readonly<Record<string, string>>,
  ): AttemptSpan;
  /** A span for `send()`; writes its `traceparent` into `headers`, which are stored with the message. */
  startEnqueue?(headers: Record<string, string>, attributes: TraceAttributes): EnqueueSpan;
}

/** How a delivery ended, for `SendMetrics.recordDelivery`. */
export type DeliveryOutcome = 'succeeded' | 'dead' | 'failed';

/** Sender metrics (see `otelMetrics`). Attributes are low-cardinality: no message or endpoint ids. */
export interface SendMetrics {
  /** One finished attempt and its duration. */
  recordAttempt(durationMs: number, attributes: TraceAttributes): void;
  /**
   * A delivery that reached its end: `succeeded`, `dead` (a dead letter), or `failed` (`sendNow` gave
   * up: it has no dead-letter queue).
   */
  recordDelivery(outcome: DeliveryOutcome, attributes: TraceAttributes): void;
}
