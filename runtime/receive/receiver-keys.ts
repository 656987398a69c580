/**
 * The option keys `createReceiver` and `ackFastQueue({ worker })` take (known-options.ts): tied to
 * their types, so a new option missing here fails `tsc`.
 */
import type { EventMapBase } from '../contract.js';
import type { KnownKeys, RenamedKeys } from '../known-options.js';
import type { ReceiverOptions, WorkerOptions } from './types.js';

export const RECEIVER_KEYS = {
  secret: true,
  publicKey: true,
  scheme: true,
  preset: true,
  verifyToken: true,
  tolerance: true,
  now: true,
  leaseMs: true,
  ttlMs: true,
  validation: true,
  validationByEvent: true,
  onValidationIssue: true,
  storeTimeoutMs: true,
  maxBodyBytes: true,
  onError: true,
  ackFast: true,
  token: true,
  logger: true,
  hooks: true,
  tracing: true,
  store: true,
  transactional: true,
  dedupe: true,
  exhaustive: true,
  handlers: true,
  unknownEvent: true,
  onUnknown: true,
  preHandle: true,
} as const satisfies KnownKeys<ReceiverOptions<EventMapBase, unknown, boolean>>;

/** Ack-fast was `mode: 'ack-fast'` with top-level `queue` and `worker` (docs/receiver.md). */
export const RECEIVER_RENAMED: RenamedKeys = {
  mode: "`ackFast: false` for `mode: 'inline'`, `ackFast: ackFastQueue()` for `mode: 'ack-fast'`",
  queue: '`ackFast: ackFastQueue({ queue })`',
  worker: '`ackFast: ackFastQueue({ worker })`',
};

export const WORKER_KEYS = {
  concurrency: true,
  batchSize: true,
  pollMs: true,
  maxAttempts: true,
  backoff: true,
} as const satisfies KnownKeys<WorkerOptions>;
