/**
 * Sending: `createSender` (validate → envelope → outbox), `createWorker` (lease → sign → POST →
 * classify → retry/DLQ), the SQLite and PostgreSQL outboxes, and the URL/SSRF rules.
 */
export { type AddressClass, classifyAddress, parseAddress } from './address.js';
export * from './destinations/index.js';
export { type AttemptResponse, createAgents, type HttpAgents } from './http-attempt.js';
export type {
  AttemptRecord,
  ClaimedDelivery,
  Delivery,
  DeliveryStatus,
  DisabledReason,
  Endpoint,
  EndpointPatch,
  EndpointSecret,
  NewEndpoint,
  Outbox,
  RedeliverTarget,
  TenantScope,
} from './outbox.js';
export {
  DEFAULT_PRUNE_BATCH,
  type OutboxTables,
  type PruneOutboxOptions,
  type PruneOutboxResult,
} from './outbox-prune.js';
export { activeSecrets, type PerformedAttempt } from './perform-attempt.js';
export { type PostgresOutboxOptions, postgresOutbox } from './postgres-outbox.js';
export { prunePostgresOutbox } from './postgres-prune.js';
export type { SecretKey } from './secret-box.js';
export { generateEndpointSecret } from './secrets.js';
export {
  createSender,
  DEFAULT_MAX_PAYLOAD_BYTES,
  SEND_NOW_SCHEDULE,
  type Sender,
  type SenderOptions,
  type SendNowOptions,
  type SendNowResult,
  type SendOptions,
  type SendResult,
  type ValidationMode,
} from './sender.js';
export { type SqliteOutboxOptions, sqliteOutbox } from './sqlite-outbox.js';
export { incrementalVacuum, pruneSqliteOutbox } from './sqlite-prune.js';
export { DEFAULT_TENANT, type Tenancy } from './tenant.js';
export {
  checkUrl,
  compileUrlPolicy,
  type LookupFunction,
  type ResolvedAddress,
  type ResolvedTarget,
  resolveTarget,
  type UrlPolicy,
} from './url-policy.js';
export {
  type AttemptEvent,
  createWorker,
  type DeadLetterThresholdEvent,
  type DeliveryWorker,
  type DeliveryWorkerOptions,
  type RunSummary,
} from './worker.js';
