/**
 * The part of node-postgres (`pg`) the PostgreSQL store and outbox call, declared structurally: the
 * runtime type-checks without `pg` or `@types/pg`, and a real `Pool`, `PoolClient` or `Client` is
 * assignable (test/types/drivers.test-d.ts checks that against the driver's own types). Types only.
 */

/** A result row: column name → value (pg types it the same way). */
// biome-ignore lint/suspicious/noExplicitAny: pg's own row type; callers name their columns.
export type QueryResultRow = { [column: string]: any };

export interface QueryResult<R extends QueryResultRow = QueryResultRow> {
  readonly rows: R[];
  readonly rowCount: number | null;
}

/** The `'error'` event of a connection or pool (runtime/pg-connection.ts listens for dropped connections). */
export interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
}

export interface Queryable extends ErrorEmitter {
  // biome-ignore lint/suspicious/noExplicitAny: matches pg's default row type.
  query<R extends QueryResultRow = any>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

/** A connection checked out of a `Pool`. */
export interface PoolClient extends Queryable {
  release(error?: Error | boolean): void;
}

/** A single connection (`new pg.Client()`, connected). */
export interface Client extends Queryable {}

export interface Pool extends Queryable {
  connect(): Promise<PoolClient>;
  readonly totalCount: number;
}
