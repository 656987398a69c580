/** The options and result of an outbox prune (`outbox.prune()`, `pruneSqliteOutbox`, `prunePostgresOutbox`). */
export interface OutboxTables {
  readonly messages: string;
  readonly deliveries: string;
  readonly attempts: string;
}

export interface PruneOutboxOptions {
  /**
   * The outbox's table names as its SQL writes them: `webhook_messages`, or `"public"."webhook_messages"`
   * for PostgreSQL. Default: the outboxes' default prefix `webhook_` (schema `public`).
   */
  readonly tables?: OutboxTables;
  /** Attempts of deliveries finished longer ago than this are deleted. */
  readonly keepAttemptsMs: number;
  /** Messages whose deliveries all finished longer ago than this go, with their deliveries and attempts. */
  readonly keepMessagesMs: number;
  /** Rows examined per batch (one short transaction each). Default 100: a few ms per batch. */
  readonly batchSize?: number;
  /** Milliseconds since the epoch; default `Date.now()`. */
  readonly now?: number;
  /** Stops between batches when aborted (what was deleted stays deleted; the next run goes on). */
  readonly signal?: AbortSignal;
  /** Pause between batches, ms, so workers and receivers run in between. Default 0 (one event-loop turn). */
  readonly pauseMs?: number;
}

export interface PruneOutboxResult {
  readonly messages: number;
  readonly deliveries: number;
  readonly attempts: number;
  /** Transactions run. */
  readonly batches: number;
  /** SQLite: pages handed back to the file system by incremental vacuum (0 for PostgreSQL). */
  readonly vacuumedPages: number;
}
