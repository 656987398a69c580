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

/** Sender side: one span per attempt; `headers` gets `traceparent` (and `tracestate`). */
export interface SendTracing {
  startAttempt(
    headers: Record<string, string>,
    attributes: TraceAttributes,
  ): { end(status: number | undefined, error?: unknown): void };
}
