/**
 * The embedded outbox on better-sqlite3. Takes the user's `Database` (or a file path, then the
 * driver is loaded lazily and the file opened in WAL mode). Every write transaction is
 * `BEGIN IMMEDIATE`: several workers (threads or processes, one connection each) on the same file
 * queue on the write lock (busy timeout) instead of failing when a deferred read upgrades to a write,
 * never lease the same delivery twice, and complete only under their own claim.
 *
 * The jobs live in outbox/sqlite/: schema and migrations, endpoints, queue (enqueue, claim),
 * attempts (completion, history); row mapping and the completion decision are shared with PostgreSQL.
 */
import type { BetterSqlite3 } from '../drivers/better-sqlite3.js';
import { WebhookError } from '../errors.js';
import type { KnownKeys } from '../known-options.js';
import { sqliteAttempts } from './outbox/sqlite/attempts.js';
import { sqliteContext } from './outbox/sqlite/context.js';
import { sqliteEndpoints } from './outbox/sqlite/endpoints.js';
import { sqliteQueue } from './outbox/sqlite/queue.js';
import { sqliteSessions } from './outbox/sqlite/sessions.js';
import type { Outbox } from './outbox.js';
import { checkOutboxOptions } from './outbox-keys.js';
import { type SecretKey, secretCodec } from './secret-box.js';
import { pruneSqliteOutbox } from './sqlite-prune.js';
import { checkTenancy, type Tenancy } from './tenant.js';

export interface SqliteOutboxOptions {
  /** Table name prefix; default `webhook_`. */
  readonly prefix?: string;
  /** `multi`: sends and new endpoints must name their tenant. Default `single` (see tenant.ts). */
  readonly tenancy?: Tenancy;
  /** Encrypt endpoint secrets at rest (AES-256-GCM); the first key encrypts, all decrypt. See secret-box.ts. */
  readonly secretKeys?: readonly SecretKey[];
}

const SQLITE_OUTBOX_KEYS = {
  prefix: true,
  tenancy: true,
  secretKeys: true,
} as const satisfies KnownKeys<SqliteOutboxOptions>;

/** Opens the outbox on a better-sqlite3 database, or on a file path (the driver is imported lazily). */
export function sqliteOutbox(
  dbOrPath: BetterSqlite3.Database | string,
  options: SqliteOutboxOptions = {},
): Outbox {
  checkOutboxOptions('sqliteOutbox', options, SQLITE_OUTBOX_KEYS);
  const prefix = options.prefix ?? 'webhook_';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix)) {
    throw new WebhookError('invalid_config', `sqliteOutbox: prefix "${prefix}" must be an SQL identifier`);
  }
  const tenancy = checkTenancy(options.tenancy, 'sqliteOutbox');
  const ctx = sqliteContext(dbOrPath, prefix, tenancy, secretCodec(options.secretKeys, 'sqliteOutbox'));
  return {
    kind: 'sqlite',
    tenancy,
    async init() {
      await ctx.db();
    },
    async close() {
      ctx.close();
    },
    ...sqliteEndpoints(ctx),
    ...sqliteQueue(ctx),
    ...sqliteAttempts(ctx),
    ...sqliteSessions(ctx),
    async prune(pruneOptions) {
      return pruneSqliteOutbox(await ctx.db(), { ...pruneOptions, tables: ctx.T });
    },
  };
}
