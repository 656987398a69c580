/** The SQLite outbox's tables, indexes and in-place migrations (idempotent, run when it opens). */
import type { BetterSqlite3 } from '../../../drivers/better-sqlite3.js';
import type { SecretCodec, StoredSecret } from '../../secret-box.js';
import { DEFAULT_TENANT } from '../../tenant.js';

type Db = BetterSqlite3.Database;

export interface SqliteTables {
  readonly endpoints: string;
  readonly messages: string;
  readonly deliveries: string;
  readonly attempts: string;
  /** Portal sessions signed out before their expiry. */
  readonly revokedSessions: string;
}

export const sqliteTables = (prefix: string): SqliteTables => ({
  endpoints: `${prefix}endpoints`,
  messages: `${prefix}messages`,
  deliveries: `${prefix}deliveries`,
  attempts: `${prefix}attempts`,
  revokedSessions: `${prefix}revoked_sessions`,
});

/** One write transaction, so workers opening the same file at once do not race. */
export function createSchema(d: Db, T: SqliteTables, codec: SecretCodec): void {
  d.transaction(() => {
    d.exec(`
      CREATE TABLE IF NOT EXISTS ${T.endpoints} (
        id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL DEFAULT '${DEFAULT_TENANT}',
        url TEXT NOT NULL,
        events TEXT NOT NULL,
        secrets TEXT NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1,
        disabled_reason TEXT,
        verified_at INTEGER,
        consecutive_failures INTEGER NOT NULL DEFAULT 0,
        failing_since INTEGER,
        rate_limit REAL,
        rate_tat INTEGER,
        description TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS ${T.messages} (
        id TEXT PRIMARY KEY,
        event_type TEXT NOT NULL,
        body TEXT NOT NULL,
        headers TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL
      );
      CREATE TABLE IF NOT EXISTS ${T.deliveries} (
        id TEXT PRIMARY KEY,
        message_id TEXT NOT NULL,
        endpoint_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending','delivering','succeeded','dead')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        lease_owner TEXT,
        lease_until INTEGER,
        last_error TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        finished_at INTEGER,
        UNIQUE (message_id, endpoint_id)
      );
      CREATE INDEX IF NOT EXISTS ${T.deliveries}_pending ON ${T.deliveries} (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX IF NOT EXISTS ${T.deliveries}_leased ON ${T.deliveries} (lease_until) WHERE status = 'delivering';
      -- Per-endpoint indexes hold only columns a claim and a completion do not change (created_at),
      -- or only dead rows: a delivery's state changes then touch no endpoint index. The earlier
      -- (endpoint_id, status, finished_at) index was rewritten on both and is dropped on open.
      DROP INDEX IF EXISTS ${T.deliveries}_endpoint;
      CREATE INDEX IF NOT EXISTS ${T.deliveries}_by_endpoint ON ${T.deliveries} (endpoint_id, created_at);
      CREATE INDEX IF NOT EXISTS ${T.deliveries}_dead ON ${T.deliveries} (endpoint_id, finished_at) WHERE status = 'dead';
      CREATE TABLE IF NOT EXISTS ${T.attempts} (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        delivery_id TEXT NOT NULL,
        message_id TEXT NOT NULL,
        endpoint_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        started_at INTEGER NOT NULL,
        duration_ms REAL NOT NULL,
        status_code INTEGER,
        error_code TEXT,
        error TEXT,
        response_snippet TEXT,
        outcome TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS ${T.attempts}_delivery ON ${T.attempts} (delivery_id);
      CREATE INDEX IF NOT EXISTS ${T.attempts}_endpoint ON ${T.attempts} (endpoint_id, id);
      -- Portal sign-outs, kept until the session would have expired (pruned by expires_at).
      CREATE TABLE IF NOT EXISTS ${T.revokedSessions} (
        session_id TEXT PRIMARY KEY,
        expires_at INTEGER NOT NULL
      );
      CREATE INDEX IF NOT EXISTS ${T.revokedSessions}_expires ON ${T.revokedSessions} (expires_at);
    `);
    // Tables made before tenants: their endpoints become the default tenant's, in place.
    if (!hasColumn(d, T.endpoints, 'tenant')) {
      d.exec(`ALTER TABLE ${T.endpoints} ADD COLUMN tenant TEXT NOT NULL DEFAULT '${DEFAULT_TENANT}'`);
    }
    d.exec(`CREATE INDEX IF NOT EXISTS ${T.endpoints}_tenant ON ${T.endpoints} (tenant, created_at)`);
    // Tables made before verification was recorded: no endpoint is known verified (null), so with
    // verification on each is challenged before it is enabled again.
    if (!hasColumn(d, T.endpoints, 'verified_at')) {
      d.exec(`ALTER TABLE ${T.endpoints} ADD COLUMN verified_at INTEGER`);
    }
    // Tables made before the failure streak's start was kept: a streak under way restarts its clock.
    if (!hasColumn(d, T.endpoints, 'failing_since')) {
      d.exec(`ALTER TABLE ${T.endpoints} ADD COLUMN failing_since INTEGER`);
    }
    // Ordering keys (FIFO per key and endpoint): the rowid is the send order (writes are serial;
    // VACUUM renumbers rowids in rowid order, which keeps it). The index holds only
    // unfinished keyed rows, so unordered traffic never touches it.
    if (!hasColumn(d, T.deliveries, 'ordering_key')) {
      d.exec(`ALTER TABLE ${T.deliveries} ADD COLUMN ordering_key TEXT`);
    }
    d.exec(`CREATE INDEX IF NOT EXISTS ${T.deliveries}_ordering ON ${T.deliveries} (endpoint_id, ordering_key)
      WHERE ordering_key IS NOT NULL AND status IN ('pending', 'delivering')`);
    if (codec.encrypts) resealSecrets(d, T, codec);
  }).immediate();
}

function hasColumn(d: Db, table: string, column: string): boolean {
  const columns = d.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
  return columns.some((c) => c.name === column);
}

/** Plaintext secrets (from before `secretKeys`) and those of older keys, rewritten under the current key. */
function resealSecrets(d: Db, T: SqliteTables, codec: SecretCodec): void {
  const rows = d.prepare(`SELECT id, secrets FROM ${T.endpoints}`).all() as { id: string; secrets: string }[];
  const update = d.prepare(`UPDATE ${T.endpoints} SET secrets = ? WHERE id = ?`);
  for (const row of rows) {
    const resealed = codec.reseal(JSON.parse(row.secrets) as StoredSecret[], row.id);
    if (resealed) update.run(JSON.stringify(resealed), row.id);
  }
}
