/** Tracing: `otelTracing(api)` for the receiver's `tracing` option and `setSendTracing` for senders. */

export { setSendTracing } from '../deliver/perform-attempt.js';
export { type OtelApiLike, type OtelTracingOptions, otelTracing } from './otel-tracing.js';
export type {
  DeliveryPhase,
  DeliverySpan,
  PhaseSpan,
  ReceiveTracing,
  SendTracing,
  TraceAttributes,
} from './types.js';
