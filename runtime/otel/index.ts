/**
 * Telemetry: `otelTracing(api)` for the receiver's `tracing` option and for senders
 * (`setSendTracing`), `otelMetrics(api)` for the sender's metrics (`setSendMetrics`).
 */

export {
  type MeterLike,
  type OtelMetricsApiLike,
  type OtelMetricsOptions,
  otelMetrics,
} from './otel-metrics.js';
export { type OtelApiLike, type OtelTracingOptions, otelTracing } from './otel-tracing.js';
export { setSendMetrics, setSendTracing } from './send-hooks.js';
export type {
  AttemptSpan,
  DeliveryOutcome,
  DeliveryPhase,
  DeliverySpan,
  EnqueueSpan,
  PhaseSpan,
  ReceiveTracing,
  SendMetrics,
  SendTracing,
  TraceAttributes,
} from './types.js';
