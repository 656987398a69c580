/**
 * The option keys `createWorker` takes, and those of the nested `retry` and `urlPolicy` objects
 * (known-options.ts), tied to their types so a new option missing here fails `tsc`.
 */
import type { BackoffConfig, JitterConfig } from '../contract.js';
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import type { UrlPolicy } from './url-policy.js';
import type { DeliveryWorkerOptions } from './worker-options.js';

export const WORKER_KEYS = {
  outbox: true,
  contract: true,
  signature: true,
  retry: true,
  concurrency: true,
  perEndpointConcurrency: true,
  rateLimitPerEndpoint: true,
  timeoutMs: true,
  leaseMs: true,
  pollIntervalMs: true,
  disableAfterFailures: true,
  disableAfterFailingForMs: true,
  minRetryAfterMs: true,
  maxRetryAfterMs: true,
  onEndpointDisabled: true,
  onDeadLetterThreshold: true,
  deadLetterThreshold: true,
  onAttempt: true,
  onError: true,
  urlPolicy: true,
  dnsCacheMs: true,
  agents: true,
  maxResponseBytes: true,
  destinations: true,
  id: true,
  now: true,
  sleep: true,
  rng: true,
} as const satisfies KnownKeys<DeliveryWorkerOptions>;

const BACKOFF_KEYS = {
  kind: true,
  initialDelay: true,
  factor: true,
  maxDelay: true,
  maxAttempts: true,
  delays: true,
  jitter: true,
} as const satisfies KnownKeys<BackoffConfig>;

const JITTER_KEYS = { kind: true, percent: true } as const satisfies KnownKeys<JitterConfig>;

export const URL_POLICY_KEYS = {
  allowHttpHosts: true,
  allowAddresses: true,
  lookup: true,
  destinationSchemes: true,
} as const satisfies KnownKeys<UrlPolicy>;

/** A caller's `retry` schedule (and its `jitter`): one the contract carries was checked when generated. */
export function checkRetryKeys(factory: string, retry: BackoffConfig | undefined, parent = 'retry'): void {
  checkKnownOptions(factory, retry, BACKOFF_KEYS, undefined, parent);
  checkKnownOptions(factory, retry?.jitter, JITTER_KEYS, undefined, `${parent}.jitter`);
}
