/**
 * The delivery worker: claims due deliveries from the outbox under a lease, makes the attempt, and
 * records the verdict — success, retry on the contract's schedule (honouring a clamped
 * `Retry-After`), or the dead-letter queue after the last attempt. It also keeps endpoint health:
 * 410 disables at once, N consecutive failures disable and call `onEndpointDisabled`.
 *
 * Delivery is at-least-once: a crash after the receiver processed a request but before the verdict
 * was stored repeats the attempt (receivers dedupe on the message id). Ordering is promised only per
 * ordering key and endpoint (the claim takes a key's head only; see docs/sender.md).
 */
import { DEFAULT_SCHEDULE } from '../backoff.js';
import { DEFAULT_TIMEOUT_MS } from '../classify.js';
import type { BackoffConfig, Contract, EventMapBase, SignatureConfig } from '../contract.js';
import { WebhookError } from '../errors.js';
import { recordDelivery } from '../otel/send-hooks.js';
import { createAgents, type HttpAgents } from './http-attempt.js';
import { resolveAttempt } from './outbox/completion.js';
import type {
  AttemptResolution,
  ClaimedDelivery,
  CompleteResult,
  DisabledReason,
  Endpoint,
  Outbox,
} from './outbox.js';
import { type PerformedAttempt, performAttempt, SchemeCache, TargetCache } from './perform-attempt.js';
import { randomId } from './random-id.js';
import { compileUrlPolicy, type UrlPolicy } from './url-policy.js';

export interface AttemptEvent {
  readonly delivery: ClaimedDelivery;
  readonly attempt: PerformedAttempt;
  readonly resolution: AttemptResolution;
}

export interface DeliveryWorkerOptions {
  readonly outbox: Outbox;
  /** Supplies the signature scheme and the retry schedule. */
  readonly contract?: Pick<Contract<EventMapBase>, 'signature' | 'retry'>;
  /** Overrides `contract.signature` (default Standard Webhooks). */
  readonly signature?: SignatureConfig;
  /** Overrides `contract.retry` (default the Standard Webhooks schedule). */
  readonly retry?: BackoffConfig;
  /** Deliveries in flight at once in this worker. Default 16. */
  readonly concurrency?: number;
  /** Deliveries in flight at once per endpoint in this worker. Default `concurrency`. */
  readonly perEndpointConcurrency?: number;
  /** Deliveries per second per endpoint across all workers, for endpoints without their own limit. */
  readonly rateLimitPerEndpoint?: number;
  /** Deadline of one attempt (connect + response). Default 5000 ms. */
  readonly timeoutMs?: number;
  /** How long a claim is exclusive; must exceed `timeoutMs`. Default `max(30 s, 2 × timeoutMs + 5 s)`. */
  readonly leaseMs?: number;
  /** Idle wait between claims when nothing is due. Default 500 ms. */
  readonly pollIntervalMs?: number;
  /** Consecutive failed attempts that disable an endpoint (0 = never). Default 50. */
  readonly disableAfterFailures?: number;
  /** Clamp of an honoured `Retry-After`, ms. Defaults 1 s and 1 h. */
  readonly minRetryAfterMs?: number;
  readonly maxRetryAfterMs?: number;
  readonly onEndpointDisabled?: (endpoint: Endpoint, reason: DisabledReason) => void | Promise<void>;
  /**
   * Called when a delivery is dead-lettered and its endpoint then holds at least
   * `deadLetterThreshold` dead letters: once per endpoint per worker, and again only after the
   * endpoint's dead letters dropped below the threshold (e.g. were redelivered). Needs both options.
   */
  readonly onDeadLetterThreshold?: (event: DeadLetterThresholdEvent) => void | Promise<void>;
  readonly deadLetterThreshold?: number;
  /** Called after each recorded attempt (metrics, logs). */
  readonly onAttempt?: (event: AttemptEvent) => void;
  /** Errors of the loop itself (database down, a hook threw). Default: `console.error`. */
  readonly onError?: (error: unknown) => void;
  readonly urlPolicy?: UrlPolicy;
  /** How long a checked host name → address answer is reused (0 = resolve every attempt). Default 30 s. */
  readonly dnsCacheMs?: number;
  /** Keep-alive agents (default: a pair owned and closed by this worker). */
  readonly agents?: HttpAgents;
  readonly maxResponseBytes?: number;
  /** Lease owner id; default `wrk_<random>`. */
  readonly id?: string;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly rng?: () => number;
}

export interface DeadLetterThresholdEvent {
  readonly endpoint: Endpoint;
  readonly threshold: number;
  /** The delivery whose dead-lettering crossed the threshold. */
  readonly deliveryId: string;
}

export interface RunSummary {
  readonly attempted: number;
  readonly succeeded: number;
  readonly retried: number;
  readonly dead: number;
}

export interface DeliveryWorker {
  readonly id: string;
  /** Starts the claim loop in the background. */
  start(): void;
  /** Stops claiming, waits for in-flight attempts to be recorded, closes owned agents. */
  stop(): Promise<void>;
  /** Delivers everything due now (up to `concurrency` at once) and returns; for tests and cron jobs. */
  runOnce(): Promise<RunSummary>;
}

const positiveInt = (value: number | undefined, fallback: number, name: string): number => {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1)
    throw new WebhookError('invalid_config', `${name} must be a positive integer`);
  return v;
};

export function createWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { outbox } = options;
  const id = options.id ?? randomId('wrk');
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const rng = options.rng ?? Math.random;
  const signature = options.signature ?? options.contract?.signature ?? { kind: 'standard-webhooks' };
  const retry = options.retry ?? options.contract?.retry ?? DEFAULT_SCHEDULE;
  const concurrency = positiveInt(options.concurrency, 16, 'concurrency');
  const perEndpoint = positiveInt(options.perEndpointConcurrency, concurrency, 'perEndpointConcurrency');
  const timeoutMs = positiveInt(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const leaseMs = positiveInt(options.leaseMs, Math.max(30_000, 2 * timeoutMs + 5000), 'leaseMs');
  if (leaseMs <= timeoutMs) {
    // A lease shorter than an attempt would let a second worker start the same attempt concurrently.
    throw new WebhookError(
      'invalid_config',
      `leaseMs (${leaseMs}) must be greater than timeoutMs (${timeoutMs})`,
    );
  }
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const disableAfterFailures = options.disableAfterFailures ?? 50;
  const policy = compileUrlPolicy(options.urlPolicy);
  const ownsAgents = options.agents === undefined;
  let agents = options.agents ?? createAgents({ maxSockets: Math.max(concurrency, 16) });
  const schemes = new SchemeCache();
  const targets = new TargetCache(options.dnsCacheMs ?? 30_000);
  const onError = options.onError ?? ((error: unknown) => console.error('gen-webhooks worker:', error));
  const deadLetterThreshold =
    options.onDeadLetterThreshold === undefined
      ? undefined
      : positiveInt(options.deadLetterThreshold, 1, 'deadLetterThreshold');
  /** Endpoints already reported at or above the threshold (reset when a later count is below it). */
  const overThreshold = new Set<string>();

  const inFlight = new Set<Promise<void>>();
  const perEndpointInFlight = new Map<string, number>();
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;

  const clamp = {
    rng,
    ...(options.minRetryAfterMs !== undefined ? { minRetryAfterMs: options.minRetryAfterMs } : {}),
    ...(options.maxRetryAfterMs !== undefined ? { maxRetryAfterMs: options.maxRetryAfterMs } : {}),
  };

  const deliver = async (delivery: ClaimedDelivery): Promise<AttemptResolution | undefined> => {
    // The lease, not only `timeoutMs`, bounds the attempt: a claim that waited on a busy database
    // (or a stalled event loop) has less of it left, and once it ends another worker may start the
    // same delivery. A lease already over is handed back untried (fenced: a no-op if re-claimed).
    const leaseLeft = delivery.leaseUntil - now();
    if (leaseLeft <= 0) {
      await outbox.release(delivery, now());
      return undefined;
    }
    let resolution: AttemptResolution | undefined;
    const attempt = await performAttempt({
      url: delivery.endpoint.url,
      secrets: delivery.endpoint.secrets,
      signature,
      messageId: delivery.messageId,
      body: delivery.body,
      headers: delivery.headers,
      now,
      policy,
      timeoutMs: Math.min(timeoutMs, Math.ceil(leaseLeft)),
      agents,
      schemes,
      targets,
      ...(options.maxResponseBytes !== undefined ? { maxResponseBytes: options.maxResponseBytes } : {}),
      eventType: delivery.eventType,
      attemptNumber: delivery.attempt,
      // Resolved once, inside the attempt, so its span and metric carry the delivery's fate.
      outcome: (performed) => {
        resolution = resolveAttempt(delivery, performed, retry, clamp);
        return resolution.kind;
      },
    });
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
      disableAfterFailures,
    });
    if (result.applied && resolution.kind !== 'retry') {
      recordDelivery(resolution.kind, {
        'webhook.type': delivery.eventType,
        'server.address': host(delivery),
      });
    }
    options.onAttempt?.({ delivery, attempt, resolution });
    if (result.disabled && options.onEndpointDisabled) {
      try {
        await options.onEndpointDisabled(result.disabled.endpoint, result.disabled.reason);
      } catch (error) {
        onError(error);
      }
    }
    if (resolution.kind === 'dead' && result.applied && deadLetterThreshold !== undefined) {
      await checkDeadLetters(delivery, deadLetterThreshold).catch(onError);
    }
    return resolution;
  };

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

  const claim = (limit: number) => {
    const busyEndpoints = [...perEndpointInFlight]
      .filter(([, n]) => n >= perEndpoint)
      .map(([endpointId]) => endpointId);
    return outbox.claim({
      owner: id,
      now: now(),
      leaseMs,
      limit,
      perEndpointLimit: perEndpoint,
      ...(busyEndpoints.length > 0 ? { excludeEndpointIds: busyEndpoints } : {}),
      ...(options.rateLimitPerEndpoint !== undefined
        ? { defaultRateLimit: options.rateLimitPerEndpoint }
        : {}),
    });
  };

  /** Starts a claimed delivery, or hands it back when its endpoint is at the local cap. */
  const launch = (delivery: ClaimedDelivery, summary?: Counters): Promise<void> => {
    const endpointId = delivery.endpoint.id;
    const count = perEndpointInFlight.get(endpointId) ?? 0;
    if (count >= perEndpoint) return outbox.release(delivery, now()).catch(onError);
    perEndpointInFlight.set(endpointId, count + 1);
    const task = deliver(delivery)
      .then((resolution) => {
        if (summary && resolution) count_(summary, resolution);
      })
      .catch(onError)
      .finally(() => {
        const left = (perEndpointInFlight.get(endpointId) ?? 1) - 1;
        if (left === 0) perEndpointInFlight.delete(endpointId);
        else perEndpointInFlight.set(endpointId, left);
        inFlight.delete(task);
        // A prefetched delivery takes the freed slot at once: the HTTP loop never waits on a claim.
        const next = running ? ready.shift() : undefined;
        if (next) void launch(next);
        if (saturated && room() >= minBatch) wake?.();
      });
    inFlight.add(task);
    return task;
  };

  const idle = (ms: number): Promise<void> =>
    new Promise<void>((resolveWait) => {
      if (options.sleep) {
        wake = resolveWait;
        void sleep(ms).then(resolveWait);
        return;
      }
      const timer = setTimeout(resolveWait, ms);
      wake = () => {
        clearTimeout(timer);
        resolveWait();
      };
    });

  // Claim in batches: waking on every finished attempt would cost one claim transaction per delivery.
  const minBatch = Math.max(1, Math.floor(concurrency / 4));
  let saturated = false;
  /**
   * Claimed beyond the free slots (at most a batch), started as slots free up. Their leases run
   * meanwhile; `deliver` hands back one whose lease ended before it started, and `stop` the rest.
   */
  const ready: ClaimedDelivery[] = [];
  const room = () => concurrency + minBatch - inFlight.size - ready.length;

  const runLoop = async () => {
    while (running) {
      const free = room();
      let claimed = 0;
      if (free >= minBatch || (inFlight.size === 0 && ready.length === 0)) {
        try {
          const batch = await claim(free);
          claimed = batch.length;
          for (const delivery of batch) {
            if (inFlight.size < concurrency && running) void launch(delivery);
            else ready.push(delivery);
          }
        } catch (error) {
          onError(error);
        }
      }
      if (!running) break;
      // Full claim: more is probably due, continue once a batch worth of slots is free.
      // Partial or empty claim: nothing more is due now, poll again later.
      saturated = claimed > 0 && claimed === free;
      if (saturated && room() >= minBatch) continue;
      await idle(saturated ? 60_000 : pollIntervalMs);
      wake = undefined;
    }
  };

  return {
    id,
    start() {
      if (running) return;
      running = true;
      loop = runLoop();
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      loop = undefined;
      await Promise.allSettled([...inFlight]);
      for (const delivery of ready.splice(0)) await outbox.release(delivery, now()).catch(onError);
      if (ownsAgents) {
        agents.http.destroy();
        agents.https.destroy();
        agents = createAgents({ maxSockets: Math.max(concurrency, 16) });
      }
    },
    async runOnce() {
      const summary: Counters = { attempted: 0, succeeded: 0, retried: 0, dead: 0 };
      const mine = new Set<Promise<void>>();
      let waiting: { until: () => boolean; resolve: () => void } | undefined;
      const settle = () => {
        if (waiting?.until()) {
          waiting.resolve();
          waiting = undefined;
        }
      };
      // A sliding window: a slow attempt holds one slot, not the whole batch; claims come in batches.
      for (;;) {
        const free = concurrency - mine.size;
        const batch = free >= minBatch || mine.size === 0 ? await claim(free) : [];
        for (const delivery of batch) {
          const task: Promise<void> = launch(delivery, summary).finally(() => {
            mine.delete(task);
            settle();
          });
          mine.add(task);
        }
        if (mine.size === 0 && batch.length === 0) break;
        // Full claim: continue when a batch worth of slots is free. Partial: nothing else is due
        // until these finish (a finished attempt may schedule an immediate retry).
        const full = batch.length > 0 && batch.length === free;
        const until = full ? () => concurrency - mine.size >= minBatch : () => mine.size === 0;
        if (!until()) await new Promise<void>((resolve) => (waiting = { until, resolve }));
      }
      return { ...summary };
    },
  };
}

function host(delivery: ClaimedDelivery): string {
  try {
    return new URL(delivery.endpoint.url).hostname;
  } catch {
    return '';
  }
}

interface Counters {
  attempted: number;
  succeeded: number;
  retried: number;
  dead: number;
}

function count_(summary: Counters, resolution: AttemptResolution): void {
  summary.attempted++;
  if (resolution.kind === 'succeeded') summary.succeeded++;
  else if (resolution.kind === 'retry') summary.retried++;
  else summary.dead++;
}
