/**
 * What every part of the PostgreSQL outbox shares: the table names, the pool (a dropped connection
 * fails the operation, never the process), transactions, the schema created once, row decoding.
 */
import type { Pool, PoolClient, QueryResultRow } from '../../../drivers/pg.js';
import { isWebhookError, WebhookError } from '../../../errors.js';
import { guardConnection, watchConnection } from '../../../pg-connection.js';
import { sha256Hex } from '../../../signing/sha256.js';
import type { Endpoint, TenantScope } from '../../outbox.js';
import type { SecretCodec } from '../../secret-box.js';
import { scopeTenant, type Tenancy } from '../../tenant.js';
import { type Columns, type Row, toEndpoint } from '../rows.js';
import { createSchema, type PgTables } from './schema.js';

export type Queryable = Pick<PoolClient, 'query'>;
export type { PgTables };

export const ms = (value: unknown): number =>
  value instanceof Date ? value.getTime() : new Date(String(value)).getTime();
export const date = (value: number): Date => new Date(value);

/**
 * A statement the driver prepares once per connection (node-postgres's named statements): the hot
 * path's claim and completions are parsed and planned by the server once, not on every call, and their
 * text is not sent again. The name is the text's hash, so outboxes with other tables (schema,
 * prefix) sharing a pool never give one name two texts.
 */
export interface Prepared {
  readonly name: string;
  readonly text: string;
}

export const prepared = (text: string): Prepared => ({
  name: `gw_${sha256Hex(text).slice(0, 24)}`,
  text,
});

export const pgColumns: Columns = {
  time: ms,
  list: (v) => v as string[],
  json: <T>(v: unknown) => v as T,
  bool: (v) => v === true,
};

export interface PgContext {
  readonly T: PgTables;
  readonly pool: Pool;
  readonly tenancy: Tenancy;
  readonly codec: SecretCodec;
  /** Creates the schema once (a failure is retried by the next call). */
  init(): Promise<void>;
  q<R extends QueryResultRow>(db: Queryable, text: string, values?: unknown[]): Promise<R[]>;
  /** `q` for a statement prepared on each connection that runs it (unless the outbox says not to). */
  qp<R extends QueryResultRow>(db: Queryable, statement: Prepared, values: unknown[]): Promise<R[]>;
  inTransaction<R>(fn: (client: PoolClient) => Promise<R>): Promise<R>;
  toEndpoint(row: Row): Endpoint;
  tenantOf(scope: TenantScope | undefined): string | null;
  /** Endpoint rows of `$n`'s tenant (null: every tenant). */
  ownTenant(n: number): string;
  /** Rows whose endpoint (`column`) is `$n`'s tenant's: deliveries and attempts carry no tenant. */
  ofTenant(column: string, n: number): string;
}

export function pgContext(
  pool: Pool,
  T: PgTables,
  tenancy: Tenancy,
  codec: SecretCodec,
  prepare = true,
): PgContext {
  guardConnection(pool);
  const inTransaction = async <R>(fn: (client: PoolClient) => Promise<R>): Promise<R> => {
    const client = await pool.connect();
    const watch = watchConnection(client);
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      watch.stop();
      // A dropped connection is destroyed, not returned to the pool.
      client.release(watch.lost());
    }
  };
  let ready: Promise<void> | undefined;
  return {
    T,
    pool,
    tenancy,
    codec,
    init() {
      ready ??= inTransaction((c) => createSchema(c, T, codec)).catch((error: unknown) => {
        ready = undefined;
        // A secret that does not decrypt (wrong or missing key) says so; anything else is the database.
        if (isWebhookError(error, 'invalid_key')) throw error;
        throw new WebhookError('store_error', 'Could not create the outbox tables', { cause: error });
      });
      return ready;
    },
    q: async <R extends QueryResultRow>(db: Queryable, text: string, values: unknown[] = []) =>
      (await db.query<R>(text, values)).rows,
    // The driver's query config form (`pg` takes `{ name, text, values }`); the structural driver
    // type declares only the text form.
    qp: async <R extends QueryResultRow>(db: Queryable, statement: Prepared, values: unknown[]) =>
      prepare
        ? (await (db.query as unknown as NamedQuery<R>)({ ...statement, values })).rows
        : (await db.query<R>(statement.text, values)).rows,
    inTransaction,
    toEndpoint: (row) => toEndpoint(row, pgColumns, codec),
    tenantOf: (scope) => scopeTenant(scope, 'postgresOutbox'),
    ownTenant: (n) => `($${n}::text IS NULL OR tenant = $${n})`,
    ofTenant: (column, n) =>
      `($${n}::text IS NULL OR ${column} IN (SELECT id FROM ${T.endpoints} WHERE tenant = $${n}))`,
  };
}

type NamedQuery<R extends QueryResultRow> = (config: {
  name: string;
  text: string;
  values: unknown[];
}) => Promise<{ rows: R[] }>;

/** The client a `send({ tx })` names. */
export function asClient(tx: unknown): Queryable {
  if (tx && typeof (tx as Queryable).query === 'function') return tx as Queryable;
  throw new WebhookError('invalid_argument', 'send({ tx }): expected a pg client inside BEGIN');
}
