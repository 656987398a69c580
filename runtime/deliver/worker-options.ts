/**
 * The delivery worker's options and handles (see worker.ts), apart so the parts of the worker can
 * name them without importing the worker.
 */

import type { BackoffConfig, Contract, EventMapBase, SignatureConfig } from '../contract.js';
import type { StopOptions, StopResult } from '../shutdown.js';
import type { DestinationFactory } from './destinations/destination.js';
import type { HttpAgents } from './http-attempt.js';
import type { AttemptResolution, ClaimedDelivery, DisabledReason, Endpoint, Outbox } from './outbox.js';
import type { PerformedAttempt } from './perform-attempt.js';
import type { UrlPolicy } from './url-policy.js';

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
  /** How long a claim is exclusive; must exceed `timeoutMs`. Default `max(30 s, 3 × timeoutMs + 5 s)`. */
  readonly leaseMs?: number;
  /** Idle wait between claims when nothing is due. Default 500 ms. */
  readonly pollIntervalMs?: number;
  /**
   * Consecutive failed attempts that disable an endpoint (0 = never). Default 50. Both this and
   * `disableAfterFailingForMs` must be reached: a count alone switches off a busy endpoint within
   * seconds of an outage.
   */
  readonly disableAfterFailures?: number;
  /**
   * How long an endpoint must have failed without a success in between before it is disabled
   * (0 = on the count alone). Default 5 days.
   */
  readonly disableAfterFailingForMs?: number;
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
  /**
   * Broker destinations for endpoints whose URL is not http(s), e.g.
   * `[amqpDestination(amqplib), natsDestination(nats)]` (docs/destinations.md). Their connections
   * are pooled per endpoint and closed by `stop()`.
   */
  readonly destinations?: readonly DestinationFactory[];
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
  /**
   * Stops claiming and hands back deliveries claimed ahead; waits up to `timeoutMs` (default 10 s)
   * for in-flight attempts to be recorded, then aborts the rest and releases their leases (not
   * counted as attempts, so a stop never dead-letters); closes owned agents. See docs/shutdown.md.
   */
  stop(options?: StopOptions): Promise<StopResult>;
  /** Delivers everything due now (up to `concurrency` at once) and returns; for tests and cron jobs. */
  runOnce(): Promise<RunSummary>;
}
