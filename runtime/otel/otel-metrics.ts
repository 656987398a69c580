/**
 * Sender metrics through the `@opentelemetry/api` module the app passes in
 * (`setSendMetrics(otelMetrics(api))`), typed structurally like `otelTracing`:
 *
 * - `webhook.attempts` (counter): every attempt, by `webhook.outcome` (`succeeded`, `retry`, `dead`;
 *   `failed` from `sendNow`), `webhook.type`, `server.address`, `http.response.status_code`, `error.type`;
 * - `webhook.attempt.duration` (histogram, seconds): the same attributes;
 * - `webhook.deliveries` (counter): deliveries that reached their end, by `webhook.outcome`
 *   (`succeeded` or `dead`; `succeeded` or `failed` from `sendNow`), `webhook.type`, `server.address`;
 * - `webhook.dead_letters` (counter): deliveries dead-lettered, by `webhook.type`, `server.address`.
 *
 * No message, delivery or endpoint ids: metric attributes must stay low-cardinality.
 */
import type { SendMetrics, TraceAttributes } from './types.js';

interface CounterLike {
  add(value: number, attributes?: TraceAttributes): void;
}
interface HistogramLike {
  record(value: number, attributes?: TraceAttributes): void;
}
interface InstrumentOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}
export interface MeterLike {
  createCounter(name: string, options?: InstrumentOptions): CounterLike;
  createHistogram(name: string, options?: InstrumentOptions): HistogramLike;
}

/** The part of `@opentelemetry/api` used here. */
export interface OtelMetricsApiLike {
  readonly metrics: { getMeter(name: string, version?: string): MeterLike };
}

export interface OtelMetricsOptions {
  /** Default `api.metrics.getMeter('gen-webhooks')`. */
  readonly meter?: MeterLike;
}

// Attempts run from milliseconds up to the attempt timeout (default 5 s, at most a lease).
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function otelMetrics(api: OtelMetricsApiLike, options: OtelMetricsOptions = {}): SendMetrics {
  const meter = options.meter ?? api.metrics.getMeter('gen-webhooks');
  const attempts = meter.createCounter('webhook.attempts', {
    description: 'Webhook delivery attempts',
    unit: '{attempt}',
  });
  const duration = meter.createHistogram('webhook.attempt.duration', {
    description: 'Duration of one webhook delivery attempt (connect to response)',
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });
  const deliveries = meter.createCounter('webhook.deliveries', {
    description: 'Webhook deliveries that reached their end (succeeded, dead-lettered, or failed in sendNow)',
    unit: '{delivery}',
  });
  const deadLetters = meter.createCounter('webhook.dead_letters', {
    description: 'Webhook deliveries moved to the dead-letter queue',
    unit: '{delivery}',
  });
  return {
    recordAttempt(durationMs, attributes) {
      attempts.add(1, attributes);
      duration.record(durationMs / 1000, attributes);
    },
    recordDelivery(outcome, attributes) {
      deliveries.add(1, { ...attributes, 'webhook.outcome': outcome });
      if (outcome === 'dead') deadLetters.add(1, attributes);
    },
  };
}
