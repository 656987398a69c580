/**
 * The PostgreSQL outbox on the user's `pg` Pool. Claims lock due rows with `FOR UPDATE SKIP LOCKED`
 * and lease them (owner + expiry), so any number of workers on any number of hosts share the work and
 * a worker that dies mid-delivery leaves it to another once the lease expires. Completions are fenced
 * on (owner, attempt), so a worker that lost its lease cannot overwrite the new holder's state.
 *
 * The jobs live in outbox/postgres/: schema and migrations, endpoints, queue (enqueue, claim),
 * attempts (completion, history); row mapping and the completion decision are shared with SQLite.
 */
import type { Pool } from '../drivers/pg.js';
import { WebhookError } from '../errors.js';
import type { KnownKeys } from '../known-options.js';
import { pgAttempts } from './outbox/postgres/attempts.js';
import { pgContext } from './outbox/postgres/context.js';
import { pgEndpoints } from './outbox/postgres/endpoints.js';
import { pgQueue } from './outbox/postgres/queue.js';
import { pgTables } from './outbox/postgres/schema.js';
import { pgSessions } from './outbox/postgres/sessions.js';
import type { Outbox } from './outbox.js';
import { checkOutboxOptions } from './outbox-keys.js';
import { prunePostgresOutbox } from './postgres-prune.js';
import { type SecretKey, secretCodec } from './secret-box.js';
import { checkTenancy, type Tenancy } from './tenant.js';

export interface PostgresOutboxOptions {
  /** Schema of the tables (created if missing); default `public`. */
  readonly schema?: string;
  /** Table name prefix; default `webhook_`. */
  readonly prefix?: string;
  /** `multi`: sends and new endpoints must name their tenant. Default `single` (see tenant.ts). */
  readonly tenancy?: Tenancy;
  /** Encrypt endpoint secrets at rest (AES-256-GCM); the first key encrypts, all decrypt. See secret-box.ts. */
  readonly secretKeys?: readonly SecretKey[];
  /**
   * Prepare the claim and completion statements once per connection (default true). `false` for a
   * pool behind a proxy that does not keep a session's prepared statements (PgBouncer in transaction
   * mode without `max_prepared_statements`).
   */
  readonly preparedStatements?: boolean;
}

const POSTGRES_OUTBOX_KEYS = {
  schema: true,
  prefix: true,
  tenancy: true,
  secretKeys: true,
  preparedStatements: true,
} as const satisfies KnownKeys<PostgresOutboxOptions>;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function postgresOutbox(pool: Pool, options: PostgresOutboxOptions = {}): Outbox {
  checkOutboxOptions('postgresOutbox', options, POSTGRES_OUTBOX_KEYS);
  const schema = options.schema ?? 'public';
  const prefix = options.prefix ?? 'webhook_';
  if (!IDENT.test(schema) || !IDENT.test(prefix)) {
    throw new WebhookError('invalid_config', 'postgresOutbox: schema and prefix must be SQL identifiers');
  }
  const tenancy = checkTenancy(options.tenancy, 'postgresOutbox');
  const codec = secretCodec(options.secretKeys, 'postgresOutbox');
  const ctx = pgContext(pool, pgTables(schema, prefix), tenancy, codec, options.preparedStatements ?? true);
  return {
    kind: 'postgres',
    tenancy,
    init: ctx.init,
    async close() {
      // The pool is the user's: they end it.
    },
    ...pgEndpoints(ctx),
    ...pgQueue(ctx),
    ...pgAttempts(ctx),
    ...pgSessions(ctx),
    async prune(pruneOptions) {
      await ctx.init();
      return prunePostgresOutbox(ctx.pool, { ...pruneOptions, tables: ctx.T });
    },
  };
}
