/**
 * One claimed delivery, start to recorded verdict: the attempt under what is left of its lease, the
 * resolution (success, retry on the schedule, dead letter), the completion, and the hooks that
 * follow (attempt event, endpoint disabled, dead-letter threshold).
 */
import { metricsOn, recordDelivery } from '../otel/send-hooks.js';
import type { DestinationPool } from './destinations/pool.js';
import type { HttpAgents } from './http-attempt.js';
import { type RetryClamp, resolveAttempt } from './outbox/completion.js';
import type {
  AttemptResolution,
  ClaimedDelivery,
  CompleteResult,
  DisabledReason,
  Endpoint,
  Outbox,
} from './outbox.js';
import { performAttempt, type SchemeCache, type TargetCache } from './perform-attempt.js';
import type { CompiledUrlPolicy } from './url-policy.js';
import type { DeliveryWorkerOptions } from './worker-options.js';

export interface DeliverConfig {
  readonly options: DeliveryWorkerOptions;
  readonly outbox: Outbox;
  readonly signature: NonNullable<DeliveryWorkerOptions['signature']>;
  readonly retry: NonNullable<DeliveryWorkerOptions['retry']>;
  readonly timeoutMs: number;
  readonly disableAfterFailures: number;
  readonly disableAfterFailingForMs: number;
  readonly deadLetterThreshold: number | undefined;
  readonly policy: CompiledUrlPolicy;
  readonly agents: () => HttpAgents;
  /** Aborted at the deadline of `worker.stop()`: an attempt cut off then is released, not recorded. */
  readonly signal: () => AbortSignal;
  readonly schemes: SchemeCache;
  readonly targets: TargetCache;
  readonly destinations?: DestinationPool;
  readonly clamp: RetryClamp;
  readonly now: () => number;
  readonly onError: (error: unknown) => void;
}

/**
 * `deliver(delivery, attempted)`: `attempted` is called once the HTTP exchange is over (or skipped),
 * before the verdict is written, so the caller can give the connection slot to the next delivery
 * while the completion waits for its batch. Resolves `undefined` when the delivery was handed back
 * (released) instead of attempted or recorded.
 */
export function createDeliver(
  config: DeliverConfig,
): (delivery: ClaimedDelivery, attempted: () => void) => Promise<AttemptResolution | undefined> {
  const { options, outbox, retry, clamp, now, onError } = config;
  /** Endpoints already reported at or above the threshold (reset when a later count is below it). */
  const overThreshold = new Set<string>();

  // Counts only up to the threshold, and only when a delivery has just died: rare, and bounded.
  const checkDeadLetters = async (delivery: ClaimedDelivery, threshold: number) => {
    const endpoint = delivery.endpoint;
    const dead = await outbox.listDeliveries({ endpointId: endpoint.id, status: 'dead', limit: threshold });
    if (dead.length < threshold) {
      overThreshold.delete(endpoint.id);
      return;
    }
    if (overThreshold.has(endpoint.id)) return;
    overThreshold.add(endpoint.id);
    await options.onDeadLetterThreshold?.({ endpoint, threshold, deliveryId: delivery.id });
  };

  const disabled = async (endpoint: Endpoint, reason: DisabledReason) => {
    try {
      await options.onEndpointDisabled?.(endpoint, reason);
    } catch (error) {
      onError(error);
    }
  };

  return async (delivery, attempted) => {
    // The lease, not only `timeoutMs`, bounds the attempt: a claim that waited on a busy database
    // (or a stalled event loop) has less of it left, and once it ends another worker may start the
    // same delivery. A lease already over is handed back untried (fenced: a no-op if re-claimed).
    const leaseLeft = delivery.leaseUntil - now();
    const signal = config.signal();
    if (leaseLeft <= 0 || signal.aborted) {
      attempted();
      await outbox.release(delivery, now());
      return undefined;
    }
    let resolution: AttemptResolution | undefined;
    let attempt: Awaited<ReturnType<typeof performAttempt>>;
    try {
      attempt = await performAttempt({
        url: delivery.endpoint.url,
        secrets: delivery.endpoint.secrets,
        signature: config.signature,
        messageId: delivery.messageId,
        body: delivery.body,
        headers: delivery.headers,
        now,
        policy: config.policy,
        timeoutMs: Math.min(config.timeoutMs, Math.ceil(leaseLeft)),
        agents: config.agents(),
        schemes: config.schemes,
        targets: config.targets,
        ...(config.destinations ? { destinations: config.destinations } : {}),
        ...(options.maxResponseBytes !== undefined ? { maxResponseBytes: options.maxResponseBytes } : {}),
        eventType: delivery.eventType,
        attemptNumber: delivery.attempt,
        // Resolved once, inside the attempt, so its span and metric carry the delivery's fate.
        outcome: (performed) => {
          resolution = resolveAttempt(delivery, performed, retry, clamp);
          return resolution.kind;
        },
        signal,
      });
    } finally {
      attempted();
    }
    // Cut off by the stop deadline before a status arrived: not the endpoint's failure, so the
    // attempt is not counted (no step towards the DLQ) and another worker retries it at once. The
    // receiver may have got the request: at-least-once, it dedupes on the message id.
    if (signal.aborted && attempt.status === undefined) {
      await outbox.release(delivery, now());
      return undefined;
    }
    resolution ??= resolveAttempt(delivery, attempt, retry, clamp);
    const result: CompleteResult = await outbox.complete({
      delivery,
      now: now(),
      // One object shape for every attempt (absent fields are undefined): this runs per delivery.
      attempt: {
        startedAt: attempt.startedAt,
        durationMs: attempt.durationMs,
        statusCode: attempt.status,
        errorCode: attempt.classification.code,
        error: attempt.error,
        responseSnippet: attempt.responseSnippet !== '' ? attempt.responseSnippet : undefined,
        outcome: attempt.classification.outcome === 'success' ? 'succeeded' : 'failed',
      },
      resolution,
      ...(attempt.classification.outcome === 'gone' ? { disable: 'gone' as const } : {}),
      disableAfterFailures: config.disableAfterFailures,
      disableAfterFailingForMs: config.disableAfterFailingForMs,
    });
    // The host is parsed only for a metric: no URL parse per delivery when metrics are off.
    if (result.applied && resolution.kind !== 'retry' && metricsOn()) {
      recordDelivery(resolution.kind, {
        'webhook.type': delivery.eventType,
        'server.address': host(delivery),
      });
    }
    options.onAttempt?.({ delivery, attempt, resolution });
    if (result.disabled && options.onEndpointDisabled) {
      await disabled(result.disabled.endpoint, result.disabled.reason);
    }
    const threshold = config.deadLetterThreshold;
    if (resolution.kind === 'dead' && result.applied && threshold !== undefined) {
      await checkDeadLetters(delivery, threshold).catch(onError);
    }
    return resolution;
  };
}

function host(delivery: ClaimedDelivery): string {
  try {
    return new URL(delivery.endpoint.url).hostname;
  } catch {
    return '';
  }
}
