/**
 * PostgreSQL idempotency store and ack-fast queue on `pg` (a `Pool`, or a single `Client`).
 *
 * The claim is one `INSERT … ON CONFLICT DO UPDATE … WHERE expires_at <= now`: exactly one concurrent
 * caller inserts (or takes over an expired lease). Transactional mode checks out a connection, runs
 * `BEGIN`, takes a transaction-scoped advisory lock on the key (so a concurrent duplicate answers
 * `in_progress` at once instead of blocking on the row), inserts the `done` row and runs the handler
 * with that client as `tx`: the business write and the dedupe row commit together. If the process
 * dies, the server rolls the transaction back when the connection drops, so no lease is needed.
 * The queue is a table drained with `FOR UPDATE SKIP LOCKED`, so many workers can share it.
 * A connection that drops fails the operation using it (a `store_error`), never the process.
 */
import type { Client, Pool, PoolClient, QueryResultRow } from '../drivers/pg.js';
import { WebhookError } from '../errors.js';
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import { type ConnectionWatch, guardConnection, watchConnection } from '../pg-connection.js';
import { batchSizeOf, inBatches } from './batches.js';
import { sqlIdentifier } from './identifier.js';
import { storeKey } from './key.js';
import { Mutex } from './mutex.js';
import { transactionWithDeadline } from './transaction-deadline.js';
import type {
  ClaimOptions,
  ClaimResult,
  CleanupOptions,
  CompleteOptions,
  DequeueOptions,
  EventQueue,
  QueuedEvent,
  TransactionalStore,
  TransactionOptions,
  TransactionResult,
} from './types.js';

export interface PostgresStoreOptions {
  /** Idempotency table; the queue table is `<table>_queue`. Default `webhook_idempotency`. */
  readonly table?: string;
  /** Schema of both tables. Default `public`. */
  readonly schema?: string;
  /** Create the tables on first use (idempotent). Default true; set false and run `migrate()` yourself. */
  readonly autoMigrate?: boolean;
}

const POSTGRES_STORE_KEYS = {
  table: true,
  schema: true,
  autoMigrate: true,
} as const satisfies KnownKeys<PostgresStoreOptions>;

const POSTGRES_SCHEMA_KEYS = { table: true, schema: true } as const satisfies KnownKeys<
  NonNullable<Parameters<typeof postgresSchema>[0]>
>;

/** The transaction client handed to transactional handlers. */
export type PostgresTx = PoolClient | Client;

/**
 * The `tx` of a store on `D`: the pool's own client type for a `pg.Pool` (read from its
 * `connect()` overloads), the client itself for a single `Client`.
 */
export type PostgresTxOf<D> = D extends {
  readonly totalCount: number;
  connect: { (): Promise<infer C>; (callback: never): void };
}
  ? C
  : D extends { readonly totalCount: number }
    ? PoolClient
    : D;

export interface PostgresStore<Tx = PostgresTx> extends TransactionalStore<Tx> {
  close(): Promise<void>;
  readonly queue: EventQueue;
  /** Create the tables if missing (safe to run concurrently from several processes). */
  migrate(): Promise<void>;
}

/** DDL of the store's tables (idempotent). */
export function postgresSchema(options: { table?: string; schema?: string } = {}): string {
  checkKnownOptions('postgresSchema', options, POSTGRES_SCHEMA_KEYS);
  const s = sqlIdentifier(options.schema ?? 'public', 'schema');
  const t = sqlIdentifier(options.table ?? 'webhook_idempotency', 'table');
  return `
CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${s}.${t} (
  key text PRIMARY KEY,
  state text NOT NULL CHECK (state IN ('inflight', 'done')),
  token text,
  expires_at bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS ${t}_expires_at ON ${s}.${t} (expires_at);
CREATE TABLE IF NOT EXISTS ${s}.${t}_queue (
  seq bigserial PRIMARY KEY,
  key text NOT NULL UNIQUE,
  payload text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  available_at bigint NOT NULL,
  locked_until bigint NOT NULL DEFAULT 0,
  last_error text,
  created_at bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS ${t}_queue_due ON ${s}.${t}_queue (status, available_at);
`;
}

function isPool(value: Pool | Client): value is Pool {
  return typeof (value as Pool).totalCount === 'number';
}

function storeError(operation: string, cause: unknown): WebhookError {
  if (cause instanceof WebhookError) return cause;
  return new WebhookError('store_error', `PostgreSQL store: ${operation} failed`, { cause });
}

export function postgresStore<D extends Pool | Client>(
  db: D,
  options?: PostgresStoreOptions,
): PostgresStore<PostgresTxOf<D>>;
export function postgresStore(db: Pool | Client, options: PostgresStoreOptions = {}): PostgresStore {
  checkKnownOptions('postgresStore', options, POSTGRES_STORE_KEYS);
  const schema = sqlIdentifier(options.schema ?? 'public', 'schema');
  const table = sqlIdentifier(options.table ?? 'webhook_idempotency', 'table');
  const t = `${schema}.${table}`;
  const q = `${schema}.${table}_queue`;
  // A single Client is one connection: transactions on it must not interleave with other queries.
  const clientLock = isPool(db) ? undefined : new Mutex();
  guardConnection(db);
  let migrated: Promise<void> | undefined;

  const migrate = (): Promise<void> => {
    migrated ??= withClient(async (client) => {
      await client.query('BEGIN');
      try {
        // Concurrent CREATE … IF NOT EXISTS can still collide in the catalog; serialise them.
        await client.query(`SELECT pg_advisory_xact_lock(hashtext('gen-webhooks:migrate:' || $1))`, [t]);
        await client.query(postgresSchema({ table, schema }));
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      }
    }, true).catch((cause: unknown) => {
      migrated = undefined;
      throw storeError('migrate', cause);
    });
    return migrated;
  };

  /** Runs `fn` on one connection, watched: a drop while it is held fails `fn`, not the process. */
  async function withClient<T>(
    fn: (client: PoolClient | Client, watch: ConnectionWatch) => Promise<T>,
    skipMigrate = false,
  ): Promise<T> {
    if (!skipMigrate && options.autoMigrate !== false) await migrate();
    if (!isPool(db)) {
      return (clientLock as Mutex).run(async () => {
        const watch = watchConnection(db);
        try {
          return await fn(db, watch);
        } finally {
          watch.stop();
        }
      });
    }
    let client: PoolClient;
    try {
      client = await db.connect();
    } catch (cause) {
      throw storeError('connect', cause);
    }
    const watch = watchConnection(client);
    let failed: Error | undefined;
    try {
      return await fn(client, watch);
    } catch (error) {
      failed = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      watch.stop();
      // A connection that failed mid-transaction (or dropped) is destroyed rather than reused.
      client.release(failed ?? watch.lost());
    }
  }

  const query = async <R extends QueryResultRow>(
    name: string,
    text: string,
    values: unknown[],
  ): Promise<{ rows: R[]; rowCount: number }> => {
    try {
      if (options.autoMigrate !== false) await migrate();
      const result =
        clientLock === undefined
          ? await db.query<R>(text, values)
          : await clientLock.run(() => db.query<R>(text, values));
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    } catch (cause) {
      throw storeError(name, cause);
    }
  };

  const claimSql = `INSERT INTO ${t} (key, state, token, expires_at) VALUES ($1, 'inflight', $2, $3)
    ON CONFLICT (key) DO UPDATE SET state = 'inflight', token = EXCLUDED.token, expires_at = EXCLUDED.expires_at
    WHERE ${t}.expires_at <= $4`;
  const markDoneSql = `INSERT INTO ${t} (key, state, token, expires_at) VALUES ($1, 'done', NULL, $2)
    ON CONFLICT (key) DO UPDATE SET state = 'done', token = NULL, expires_at = EXCLUDED.expires_at
    WHERE ${t}.expires_at <= $3`;
  const stateSql = `SELECT state, expires_at FROM ${t} WHERE key = $1`;

  const classify = (row: { state: string; expires_at: string } | undefined, now: number): ClaimResult => {
    if (row === undefined || Number(row.expires_at) <= now) return 'claimed';
    return row.state === 'done' ? 'duplicate' : 'in_progress';
  };

  const queue: EventQueue = {
    async enqueue(id, payload, { now }) {
      const key = storeKey(id);
      const { rowCount } = await query(
        'enqueue',
        `INSERT INTO ${q} (key, payload, available_at, created_at) VALUES ($1, $2, $3, $3)
         ON CONFLICT (key) DO UPDATE SET status = 'pending', payload = EXCLUDED.payload, attempts = 0,
           available_at = EXCLUDED.available_at, locked_until = 0, last_error = NULL
         WHERE ${q}.status = 'failed'`,
        [key, payload, now],
      );
      return rowCount > 0;
    },
    async dequeue({ now, leaseMs, limit }: DequeueOptions) {
      const { rows } = await query<{ seq: string; key: string; payload: string; attempts: number }>(
        'dequeue',
        `UPDATE ${q} SET locked_until = $2, attempts = attempts + 1
         WHERE seq IN (SELECT seq FROM ${q} WHERE status = 'pending' AND available_at <= $1 AND locked_until <= $1
                       ORDER BY seq LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING seq, key, payload, attempts`,
        [now, now + leaseMs, limit],
      );
      return rows
        .map(
          (row): QueuedEvent => ({
            seq: String(row.seq),
            key: row.key,
            payload: row.payload,
            attempts: row.attempts,
          }),
        )
        .sort((a, b) => Number(a.seq) - Number(b.seq));
    },
    async extend(seq, { now, leaseMs, attempts }) {
      // Fenced on the take: a row settled (locked_until 0) or taken again (attempts moved on) is not renewed.
      const { rowCount } = await query(
        'extend',
        `UPDATE ${q} SET locked_until = $2
         WHERE seq = $1 AND status = 'pending' AND attempts = $3 AND locked_until > 0`,
        [seq, now + leaseMs, attempts],
      );
      return rowCount > 0;
    },
    async ack(seq) {
      await query('ack', `DELETE FROM ${q} WHERE seq = $1`, [seq]);
    },
    async retry(seq, { availableAt, error, countAttempt }) {
      await query(
        'retry',
        `UPDATE ${q} SET available_at = $2, locked_until = 0, last_error = $3,
           attempts = greatest(attempts - $4, 0) WHERE seq = $1`,
        [seq, availableAt, error, countAttempt === false ? 1 : 0],
      );
    },
    async fail(seq, { error }) {
      await query(
        'fail',
        `UPDATE ${q} SET status = 'failed', locked_until = 0, last_error = $2 WHERE seq = $1`,
        [seq, error],
      );
    },
    async counts() {
      const { rows } = await query<{ pending: string; failed: string }>(
        'counts',
        `SELECT count(*) FILTER (WHERE status = 'pending') AS pending, count(*) FILTER (WHERE status = 'failed') AS failed FROM ${q}`,
        [],
      );
      return { pending: Number(rows[0]?.pending ?? 0), failed: Number(rows[0]?.failed ?? 0) };
    },
  };

  return {
    name: 'postgres',
    queue,
    migrate,
    async close() {
      // The pool/client belongs to the caller.
    },
    async claim(id: string, { leaseMs, now, token }: ClaimOptions): Promise<ClaimResult> {
      const key = storeKey(id);
      // Bounded: the second round only happens when the row vanished between the two statements.
      for (let round = 0; round < 3; round++) {
        const inserted = await query('claim', claimSql, [key, token, now + leaseMs, now]);
        if (inserted.rowCount > 0) return 'claimed';
        const { rows } = await query<{ state: string; expires_at: string }>('claim', stateSql, [key]);
        const state = classify(rows[0], now);
        if (state !== 'claimed') return state;
      }
      return 'in_progress';
    },
    async extend(id: string, { leaseMs, now, token }: ClaimOptions) {
      const { rowCount } = await query(
        'extend',
        `UPDATE ${t} SET expires_at = $3 WHERE key = $1 AND state = 'inflight' AND token = $2 AND expires_at > $4`,
        [storeKey(id), token, now + leaseMs, now],
      );
      return rowCount > 0;
    },
    async complete(id: string, { ttlMs, now }: CompleteOptions) {
      await query(
        'complete',
        `INSERT INTO ${t} (key, state, token, expires_at) VALUES ($1, 'done', NULL, $2)
         ON CONFLICT (key) DO UPDATE SET state = 'done', token = NULL, expires_at = EXCLUDED.expires_at`,
        [storeKey(id), now + ttlMs],
      );
    },
    async release(id, { token }) {
      await query('release', `DELETE FROM ${t} WHERE key = $1 AND state = 'inflight' AND token = $2`, [
        storeKey(id),
        token,
      ]);
    },
    async cleanup(now: number, options?: CleanupOptions) {
      const size = batchSizeOf(options, 'postgresStore.cleanup');
      // Bounded batches through the expires_at index. The outer condition is re-checked on a row a
      // concurrent claim just took over (READ COMMITTED re-evaluates it on the new version), so a
      // fresh lease is never deleted.
      return inBatches(options, async () => {
        const { rowCount } = await query(
          'cleanup',
          `DELETE FROM ${t} WHERE key IN (SELECT key FROM ${t} WHERE expires_at <= $1 LIMIT $2) AND expires_at <= $1`,
          [now, size],
        );
        return { removed: rowCount, more: rowCount >= size };
      });
    },
    async transaction<T>(
      id: string,
      { ttlMs, now, timeoutMs }: TransactionOptions,
      fn: (tx: PostgresTx) => T | Promise<T>,
    ): Promise<TransactionResult<T>> {
      const key = storeKey(id);
      return transactionWithDeadline(
        timeoutMs,
        (inner) => withClient((client, watch) => run(client, watch, inner)),
        fn,
      );
      async function run(
        client: PoolClient | Client,
        watch: ConnectionWatch,
        inner: (tx: PostgresTx) => Promise<T>,
      ): Promise<TransactionResult<T>> {
        const sql = async <R extends QueryResultRow>(name: string, text: string, values: unknown[] = []) => {
          try {
            return await client.query<R>(text, values);
          } catch (cause) {
            throw storeError(name, cause);
          }
        };
        // Most duplicates are sequential retries of a finished event: answer them without a lock.
        const before = await sql<{ state: string; expires_at: string }>('claim', stateSql, [key]);
        if (classify(before.rows[0], now) === 'duplicate') return { status: 'duplicate' };
        await sql('begin', 'BEGIN');
        try {
          const locked = await sql<{ locked: boolean }>(
            'lock',
            'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked',
            [`${t}:${key}`],
          );
          if (locked.rows[0]?.locked !== true) {
            await sql('rollback', 'ROLLBACK');
            return { status: 'in_progress' };
          }
          const inserted = await sql('claim', markDoneSql, [key, now + ttlMs, now]);
          if ((inserted.rowCount ?? 0) === 0) {
            const { rows } = await sql<{ state: string; expires_at: string }>('claim', stateSql, [key]);
            await sql('rollback', 'ROLLBACK');
            return { status: classify(rows[0], now) === 'duplicate' ? 'duplicate' : 'in_progress' };
          }
          const value = await inner(client);
          await sql('commit', 'COMMIT');
          return { status: 'committed', value };
        } catch (error) {
          const dropped = watch.lost();
          // The connection dropped under the transaction (and so under the handler's queries): the
          // server rolls it back, and the failure is the store's, not the handler's.
          if (dropped !== undefined) throw storeError('transaction (connection lost)', dropped);
          await client.query('ROLLBACK').catch(() => {});
          throw error;
        }
      }
    },
  };
}
