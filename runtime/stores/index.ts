/**
 * Idempotency stores (one interface, several backends) and the ack-fast queue. Each store takes the
 * user's driver instance and imports driver types only, so this barrel loads no driver.
 */
export { type MemoryStore, memoryStore } from './memory.js';
export {
  type PostgresStore,
  type PostgresStoreOptions,
  type PostgresTx,
  type PostgresTxOf,
  postgresSchema,
  postgresStore,
} from './postgres.js';
export { type RedisStoreOptions, redisStore } from './redis.js';
export { RETRY_WINDOWS, type RetryWindowProvider } from './retry-windows.js';
export { type SqliteStore, type SqliteStoreOptions, sqliteSchema, sqliteStore } from './sqlite.js';
export { transactionWithDeadline } from './transaction-deadline.js';
export {
  type ClaimOptions,
  type ClaimResult,
  type CleanupOptions,
  type CompleteOptions,
  DEFAULT_CLEANUP_BATCH,
  DEFAULT_LEASE_MS,
  DEFAULT_TTL_MS,
  type DequeueOptions,
  type EventQueue,
  type IdempotencyStore,
  type QueuedEvent,
  type QueueLeaseOptions,
  type QueueRetryOptions,
  type ReleaseOptions,
  type TransactionalStore,
  type TransactionOptions,
  type TransactionResult,
} from './types.js';
