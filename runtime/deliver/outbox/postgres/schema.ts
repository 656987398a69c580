/**
 * The PostgreSQL outbox's tables, indexes and in-place migrations: idempotent, in one transaction
 * under an advisory lock, so workers starting at once do not race on `CREATE … IF NOT EXISTS`.
 * When every object is already there (every open but the first and an upgrade's), no DDL runs at all:
 * even a no-op `CREATE INDEX IF NOT EXISTS` takes a SHARE lock on its table until commit, which
 * holds back every send meanwhile and, taken on deliveries before messages, deadlocks with a send
 * that inserts into messages first.
 */
import type { PoolClient } from '../../../drivers/pg.js';
import type { SecretCodec, StoredSecret } from '../../secret-box.js';
import { DEFAULT_TENANT } from '../../tenant.js';

export interface PgTables {
  readonly schema: string;
  readonly prefix: string;
  readonly endpoints: string;
  readonly messages: string;
  readonly deliveries: string;
  readonly attempts: string;
  /** Portal sessions signed out before their expiry. */
  readonly revokedSessions: string;
  /** The sequence of `deliveries.ordering_seq`. */
  readonly orderingSeq: string;
}

export function pgTables(schema: string, prefix: string): PgTables {
  const t = (name: string) => `"${schema}"."${prefix}${name}"`;
  return {
    schema,
    prefix,
    endpoints: t('endpoints'),
    messages: t('messages'),
    deliveries: t('deliveries'),
    attempts: t('attempts'),
    revokedSessions: t('revoked_sessions'),
    orderingSeq: t('deliveries_ordering_seq'),
  };
}

/** Every table, index and sequence `createSchema` makes, without the prefix (constraint indexes aside). */
export const SCHEMA_OBJECTS = [
  'endpoints',
  'messages',
  'deliveries',
  'attempts',
  'deliveries_pending',
  'deliveries_leased',
  'deliveries_endpoint',
  'attempts_delivery',
  'attempts_endpoint',
  'endpoints_tenant',
  'messages_created',
  'endpoints_skipped',
  'deliveries_ordering_seq',
  'deliveries_ordering',
  'revoked_sessions',
  'revoked_sessions_expires',
] as const;

/** Columns added in place to tables made by older versions. */
const ADDED_COLUMNS = [
  ['endpoints', 'tenant'],
  ['deliveries', 'ordering_key'],
  ['endpoints', 'verified_at'],
  ['endpoints', 'failing_since'],
] as const;

export async function createSchema(c: PoolClient, T: PgTables, codec: SecretCodec): Promise<void> {
  const { schema, prefix } = T;
  await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`gen-webhooks:${schema}.${prefix}`]);
  if (!(await isComplete(c, T))) await migrate(c, T);
  if (codec.encrypts) await resealSecrets(c, T, codec);
}

/** Whether every object and added column exists: read from the catalogs, which takes no table lock. */
async function isComplete(c: PoolClient, T: PgTables): Promise<boolean> {
  const { rows } = await c.query(
    `SELECT (SELECT count(*)::int FROM pg_class k JOIN pg_namespace n ON n.oid = k.relnamespace
              WHERE n.nspname = $1 AND k.relname = ANY ($2::text[])) AS objects,
            (SELECT count(*)::int FROM pg_attribute a JOIN pg_class k ON k.oid = a.attrelid
              JOIN pg_namespace n ON n.oid = k.relnamespace
              WHERE n.nspname = $1 AND NOT a.attisdropped AND (k.relname || '.' || a.attname) = ANY ($3::text[])) AS columns`,
    [
      T.schema,
      SCHEMA_OBJECTS.map((name) => `${T.prefix}${name}`),
      ADDED_COLUMNS.map(([table, column]) => `${T.prefix}${table}.${column}`),
    ],
  );
  const row = rows[0] as { objects: number; columns: number } | undefined;
  return row?.objects === SCHEMA_OBJECTS.length && row.columns === ADDED_COLUMNS.length;
}

async function migrate(c: PoolClient, T: PgTables): Promise<void> {
  const { schema, prefix } = T;
  await c.query(`
    CREATE SCHEMA IF NOT EXISTS "${schema}";
    CREATE TABLE IF NOT EXISTS ${T.endpoints} (
      id text PRIMARY KEY,
      tenant text NOT NULL DEFAULT '${DEFAULT_TENANT}',
      url text NOT NULL,
      events text[] NOT NULL,
      secrets jsonb NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text,
      verified_at timestamptz,
      consecutive_failures integer NOT NULL DEFAULT 0,
      failing_since timestamptz,
      rate_limit double precision,
      rate_tat timestamptz,
      description text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    );
    CREATE TABLE IF NOT EXISTS ${T.messages} (
      id text PRIMARY KEY,
      event_type text NOT NULL,
      body text NOT NULL,
      headers jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL
    );
    CREATE TABLE IF NOT EXISTS ${T.deliveries} (
      id text PRIMARY KEY,
      message_id text NOT NULL REFERENCES ${T.messages} (id) ON DELETE CASCADE,
      endpoint_id text NOT NULL REFERENCES ${T.endpoints} (id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('pending', 'delivering', 'succeeded', 'dead')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      lease_owner text,
      lease_until timestamptz,
      last_error text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      finished_at timestamptz,
      UNIQUE (message_id, endpoint_id)
    );
    CREATE INDEX IF NOT EXISTS "${prefix}deliveries_pending" ON ${T.deliveries} (next_attempt_at) WHERE status = 'pending';
    CREATE INDEX IF NOT EXISTS "${prefix}deliveries_leased" ON ${T.deliveries} (lease_until) WHERE status = 'delivering';
    CREATE INDEX IF NOT EXISTS "${prefix}deliveries_endpoint" ON ${T.deliveries} (endpoint_id, status, finished_at);
    CREATE TABLE IF NOT EXISTS ${T.attempts} (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      delivery_id text NOT NULL REFERENCES ${T.deliveries} (id) ON DELETE CASCADE,
      message_id text NOT NULL,
      endpoint_id text NOT NULL,
      attempt integer NOT NULL,
      started_at timestamptz NOT NULL,
      duration_ms double precision NOT NULL,
      status_code integer,
      error_code text,
      error text,
      response_snippet text,
      outcome text NOT NULL
    );
    CREATE INDEX IF NOT EXISTS "${prefix}attempts_delivery" ON ${T.attempts} (delivery_id);
    CREATE INDEX IF NOT EXISTS "${prefix}attempts_endpoint" ON ${T.attempts} (endpoint_id, id);
  `);
  // Tables made before tenants: their endpoints become the default tenant's, in place. Checked
  // first: even a no-op ALTER TABLE waits for every open transaction that touched the table.
  if (!(await hasColumn(c, T, 'endpoints', 'tenant'))) {
    await c.query(`ALTER TABLE ${T.endpoints} ADD COLUMN tenant text NOT NULL DEFAULT '${DEFAULT_TENANT}'`);
  }
  await c.query(
    `CREATE INDEX IF NOT EXISTS "${prefix}endpoints_tenant" ON ${T.endpoints} (tenant, created_at)`,
  );
  // Tables made before verification was recorded: no endpoint is known verified (null), so with
  // verification on each is challenged before it is enabled again. IF NOT EXISTS as well: the check
  // keeps the common case lock-free, the clause keeps a repeat harmless.
  if (!(await hasColumn(c, T, 'endpoints', 'verified_at'))) {
    await c.query(`ALTER TABLE ${T.endpoints} ADD COLUMN IF NOT EXISTS verified_at timestamptz`);
  }
  // Tables made before the failure streak's start was kept: a streak under way restarts its clock.
  if (!(await hasColumn(c, T, 'endpoints', 'failing_since'))) {
    await c.query(`ALTER TABLE ${T.endpoints} ADD COLUMN IF NOT EXISTS failing_since timestamptz`);
  }
  // Retention's pass over messages that matched no endpoint (no delivery leads to them) reads the
  // old ones through this index instead of the whole table. Added in place to older outboxes.
  await c.query(`CREATE INDEX IF NOT EXISTS "${prefix}messages_created" ON ${T.messages} (created_at, id)`);
  // The endpoints the plain claim skips (disabled, rate-limited): few, read once per claim.
  await c.query(
    `CREATE INDEX IF NOT EXISTS "${prefix}endpoints_skipped" ON ${T.endpoints} (id) WHERE NOT enabled OR rate_limit IS NOT NULL`,
  );
  // Ordering keys (FIFO per key and endpoint): `ordering_seq` is the send order, drawn under a
  // per-key lock (see the queue). The index holds only unfinished keyed rows.
  if (!(await hasColumn(c, T, 'deliveries', 'ordering_key'))) {
    await c.query(`ALTER TABLE ${T.deliveries} ADD COLUMN ordering_key text, ADD COLUMN ordering_seq bigint`);
  }
  await c.query(`
    CREATE SEQUENCE IF NOT EXISTS ${T.orderingSeq};
    CREATE INDEX IF NOT EXISTS "${prefix}deliveries_ordering" ON ${T.deliveries} (endpoint_id, ordering_key, ordering_seq)
      WHERE ordering_key IS NOT NULL AND status IN ('pending', 'delivering');
  `);
  // Portal sign-outs, kept until the session would have expired (pruned by expires_at). Added in
  // place to older outboxes.
  await c.query(`
    CREATE TABLE IF NOT EXISTS ${T.revokedSessions} (
      session_id text PRIMARY KEY,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS "${prefix}revoked_sessions_expires" ON ${T.revokedSessions} (expires_at);
  `);
}

async function hasColumn(c: PoolClient, T: PgTables, table: string, column: string): Promise<boolean> {
  const { rows } = await c.query(
    `SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name = $3`,
    [T.schema, `${T.prefix}${table}`, column],
  );
  return rows.length > 0;
}

/**
 * Plaintext secrets (from before `secretKeys`) and those of older keys, under the current key. Only
 * those rows are locked (and re-read), so a rotation committing meanwhile is kept.
 */
async function resealSecrets(c: PoolClient, T: PgTables, codec: SecretCodec): Promise<void> {
  const stale = (await c.query(`SELECT id, secrets FROM ${T.endpoints}`)).rows
    .filter((r) => codec.reseal(r.secrets as StoredSecret[], r.id as string) !== undefined)
    .map((r) => r.id as string);
  if (stale.length === 0) return;
  const locked = await c.query(
    `SELECT id, secrets FROM ${T.endpoints} WHERE id = ANY ($1::text[]) FOR UPDATE`,
    [stale],
  );
  for (const row of locked.rows) {
    const resealed = codec.reseal(row.secrets as StoredSecret[], row.id as string);
    if (resealed) {
      await c.query(`UPDATE ${T.endpoints} SET secrets = $2 WHERE id = $1`, [
        row.id,
        JSON.stringify(resealed),
      ]);
    }
  }
}
