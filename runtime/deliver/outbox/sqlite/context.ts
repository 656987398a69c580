/**
 * What every part of the SQLite outbox shares: the table names, the connection (opened lazily from a
 * path, with the schema created on first use), per-connection statement caches and row decoding.
 */
import type { BetterSqlite3 } from '../../../drivers/better-sqlite3.js';
import { WebhookError } from '../../../errors.js';
import type { Endpoint, TenantScope } from '../../outbox.js';
import type { SecretCodec } from '../../secret-box.js';
import { scopeTenant, type Tenancy } from '../../tenant.js';
import { type Columns, type Row, toEndpoint } from '../rows.js';
import type { Db } from './immediate.js';
import { createSchema, type SqliteTables, sqliteTables } from './schema.js';
import { turnWrites, type WriteInTurn } from './turn-writes.js';

export { type Db, immediateOn } from './immediate.js';
export type { SqliteTables };

export const sqliteColumns: Columns = {
  time: (v) => v as number,
  list: (v) => JSON.parse(v as string) as string[],
  json: <T>(v: unknown) => JSON.parse(v as string) as T,
  bool: (v) => v === 1,
};

export interface SqliteContext {
  readonly T: SqliteTables;
  readonly tenancy: Tenancy;
  readonly codec: SecretCodec;
  /** The connection, schema created (once). */
  db(): Promise<Db>;
  /** The claim and completions of one event-loop turn, in one transaction (turn-writes.ts). */
  readonly writeInTurn: WriteInTurn;
  /** The prepared statement of `sql` on `d`, cached by its text. */
  stmt(d: Db, sql: string): BetterSqlite3.Statement;
  toEndpoint(row: Row): Endpoint;
  selectEndpoint(d: Db, id: string): Row | undefined;
  /** `@tenant` binding of a scope (null: every tenant). */
  tenantOf(scope: TenantScope | undefined): { tenant: string | null };
  /** Endpoint rows of `@tenant`. */
  readonly ownTenant: string;
  /** Rows whose endpoint (`column`) is `@tenant`'s: deliveries and attempts carry no tenant. */
  ofTenant(column: string): string;
  close(): void;
}

export function sqliteContext(
  dbOrPath: Db | string,
  prefix: string,
  tenancy: Tenancy,
  codec: SecretCodec,
): SqliteContext {
  const T = sqliteTables(prefix);
  const ownsDb = typeof dbOrPath === 'string';
  let db: Db | undefined = typeof dbOrPath === 'string' ? undefined : dbOrPath;
  let ready: Promise<Db> | undefined;

  // Prepared statements are cached per connection: a `tx` handle may be a different connection.
  const cache = new WeakMap<Db, Map<string, BetterSqlite3.Statement>>();
  const stmt = (d: Db, sql: string): BetterSqlite3.Statement => {
    let map = cache.get(d);
    if (!map) {
      map = new Map();
      cache.set(d, map);
    }
    let s = map.get(sql);
    if (!s) {
      s = d.prepare(sql);
      map.set(sql, s);
    }
    return s;
  };

  const context: SqliteContext = {
    T,
    tenancy,
    codec,
    writeInTurn: turnWrites(() => context.db()),
    db() {
      ready ??= (async () => {
        if (!db) {
          const specifier = 'better-sqlite3'; // a variable: tsc and bundlers need not resolve the driver
          const mod = (await import(specifier)) as { default: typeof BetterSqlite3 };
          db = new mod.default(dbOrPath as string);
          // Before WAL and the first table: a new file hands pruned pages back (incremental vacuum).
          db.pragma('auto_vacuum = INCREMENTAL');
          db.pragma('journal_mode = WAL');
          db.pragma('synchronous = NORMAL');
          db.pragma('busy_timeout = 5000');
        }
        createSchema(db, T, codec);
        return db;
      })();
      return ready;
    },
    stmt,
    toEndpoint: (row) => toEndpoint(row, sqliteColumns, codec),
    selectEndpoint: (d, id) =>
      stmt(d, `SELECT * FROM ${T.endpoints} WHERE id = ?`).get(id) as Row | undefined,
    tenantOf: (scope) => ({ tenant: scopeTenant(scope, 'sqliteOutbox') }),
    ownTenant: '(@tenant IS NULL OR tenant = @tenant)',
    ofTenant: (column) =>
      `(@tenant IS NULL OR ${column} IN (SELECT id FROM ${T.endpoints} WHERE tenant = @tenant))`,
    close() {
      if (ownsDb && db) {
        db.close();
        db = undefined;
        ready = undefined;
      }
    },
  };
  return context;
}

/** The connection a `send({ tx })` names. */
export function asDb(tx: unknown): Db {
  if (tx && typeof (tx as Db).prepare === 'function' && typeof (tx as Db).transaction === 'function')
    return tx as Db;
  throw new WebhookError(
    'invalid_argument',
    'send({ tx }): expected the better-sqlite3 Database of the transaction',
  );
}
