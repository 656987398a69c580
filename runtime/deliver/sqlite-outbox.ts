/**
 * The embedded outbox on better-sqlite3. Takes the user's `Database` (or a file path, then the
 * driver is loaded lazily and the file opened in WAL mode). Every write transaction is
 * `BEGIN IMMEDIATE`: several workers (threads or processes, one connection each) on the same file
 * queue on the write lock (busy timeout) instead of failing when a deferred read upgrades to a write,
 * never lease the same delivery twice, and complete only under their own claim.
 */
import type { BetterSqlite3 } from '../drivers/better-sqlite3.js';
import { WebhookError } from '../errors.js';
import { pickCandidates } from './claim-filter.js';
import type {
  AttemptRecord,
  ClaimedDelivery,
  ClaimOptions,
  CompleteInput,
  CompleteResult,
  Delivery,
  DeliveryStatus,
  DisabledReason,
  Endpoint,
  EndpointPatch,
  EnqueueOptions,
  EnqueueResult,
  ListDeliveriesOptions,
  NewEndpoint,
  NewMessage,
  Outbox,
  RedeliverTarget,
  TenantScope,
} from './outbox.js';
import { randomId } from './random-id.js';
import { type SecretKey, type StoredSecret, secretCodec } from './secret-box.js';
import { checkTenancy, DEFAULT_TENANT, resolveTenant, scopeTenant, type Tenancy } from './tenant.js';

type Db = BetterSqlite3.Database;

export interface SqliteOutboxOptions {
  /** Table name prefix; default `webhook_`. */
  readonly prefix?: string;
  /** `multi`: sends and new endpoints must name their tenant. Default `single` (see tenant.ts). */
  readonly tenancy?: Tenancy;
  /** Encrypt endpoint secrets at rest (AES-256-GCM); the first key encrypts, all decrypt. See secret-box.ts. */
  readonly secretKeys?: readonly SecretKey[];
}

interface EndpointRow {
  id: string;
  tenant: string;
  url: string;
  events: string;
  secrets: string;
  enabled: number;
  disabled_reason: string | null;
  consecutive_failures: number;
  rate_limit: number | null;
  rate_tat: number | null;
  description: string | null;
  created_at: number;
  updated_at: number;
}

interface DeliveryRow {
  id: string;
  message_id: string;
  endpoint_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

interface AttemptRow {
  id: number;
  delivery_id: string;
  message_id: string;
  endpoint_id: string;
  attempt: number;
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error_code: string | null;
  error: string | null;
  response_snippet: string | null;
  outcome: 'succeeded' | 'failed';
}

/** Opens the outbox on a better-sqlite3 database, or on a file path (the driver is imported lazily). */
export function sqliteOutbox(dbOrPath: Db | string, options: SqliteOutboxOptions = {}): Outbox {
  const p = options.prefix ?? 'webhook_';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(p)) {
    throw new WebhookError('invalid_config', `sqliteOutbox: prefix "${p}" must be an SQL identifier`);
  }
  const tenancy = checkTenancy(options.tenancy, 'sqliteOutbox');
  const codec = secretCodec(options.secretKeys, 'sqliteOutbox');
  const T = {
    endpoints: `${p}endpoints`,
    messages: `${p}messages`,
    deliveries: `${p}deliveries`,
    attempts: `${p}attempts`,
  };
  // Hot statements' SQL built once: `stmt` looks statements up by their text, and a template
  // literal rebuilt per call is a new string to hash every time.
  const SQL = {
    completeUpdate: `UPDATE ${T.deliveries}
         SET status = ?, next_attempt_at = ?, lease_owner = NULL, lease_until = NULL, last_error = ?,
             updated_at = ?, finished_at = ?
         WHERE id = ? AND status = 'delivering' AND lease_owner = ? AND attempts = ?`,
    attemptInsert: `INSERT INTO ${T.attempts} (delivery_id, message_id, endpoint_id, attempt, started_at, duration_ms,
         status_code, error_code, error, response_snippet, outcome)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    resetFailures: `UPDATE ${T.endpoints} SET consecutive_failures = 0 WHERE id = ? AND consecutive_failures <> 0`,
    countFailure: `UPDATE ${T.endpoints} SET consecutive_failures = consecutive_failures + 1 WHERE id = ?
       RETURNING consecutive_failures`,
    claimUpdate: `UPDATE ${T.deliveries} SET status = 'delivering', attempts = attempts + 1, lease_owner = ?, lease_until = ?,
         updated_at = ?
       WHERE id IN (SELECT value FROM json_each(?))`,
    // The claimed rows with their messages in one statement, in the order chosen.
    claimRead: `SELECT d.id, d.message_id, d.endpoint_id, d.attempts, m.event_type, m.body, m.headers, m.created_at
       FROM json_each(?) j JOIN ${T.deliveries} d ON d.id = j.value JOIN ${T.messages} m ON m.id = d.message_id`,
  };
  /**
   * The two candidate scans (expired leases, then due pending rows), per limit and with or without
   * excluded endpoints. The limit is written into the SQL: a bound LIMIT makes SQLite re-prepare the
   * statement on every run (~10 µs here), and `json_each` of an empty exclusion list costs as much
   * again, so the usual claim (nothing excluded) has no exclusion clause at all. Limits are small
   * integers (free worker slots), so there are few of these.
   */
  const claimScans = new Map<number, { expired: string; pending: string }>();
  const claimScanSql = (limit: number, excluding: boolean): { expired: string; pending: string } => {
    const key = excluding ? -limit : limit;
    let sql = claimScans.get(key);
    if (!sql) {
      const exclude = excluding ? 'AND d.endpoint_id NOT IN (SELECT value FROM json_each(?))' : '';
      const scan = (status: string, column: string) => `SELECT d.id, d.endpoint_id, e.rate_limit, e.rate_tat
         FROM ${T.deliveries} d JOIN ${T.endpoints} e ON e.id = d.endpoint_id
         WHERE d.status = '${status}' AND d.${column} <= ? AND e.enabled = 1 ${exclude}
         ORDER BY d.${column} LIMIT ${limit}`;
      sql = { expired: scan('delivering', 'lease_until'), pending: scan('pending', 'next_attempt_at') };
      claimScans.set(key, sql);
    }
    return sql;
  };
  const ownsDb = typeof dbOrPath === 'string';
  let db: Db | undefined = typeof dbOrPath === 'string' ? undefined : dbOrPath;
  let ready: Promise<Db> | undefined;

  const init = (): Promise<Db> => {
    ready ??= (async () => {
      if (!db) {
        const specifier = 'better-sqlite3'; // a variable: tsc and bundlers need not resolve the driver
        const mod = (await import(specifier)) as { default: typeof BetterSqlite3 };
        db = new mod.default(dbOrPath as string);
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.pragma('busy_timeout = 5000');
      }
      createSchema(db);
      return db;
    })();
    return ready;
  };

  // Idempotent DDL in one write transaction, so workers opening the same file at once do not race.
  const createSchema = (d: Db) => d.transaction(() => schemaDdl(d)).immediate();
  const schemaDdl = (d: Db) => {
    d.exec(`
      CREATE TABLE IF NOT EXISTS ${T.endpoints} (
        id TEXT PRIMARY KEY,
        tenant TEXT NOT NULL DEFAULT '${DEFAULT_TENANT}',
        url TEXT NOT NULL,
        events TEXT NOT NULL,
        secrets TEXT NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1,
        disabled_reason TEXT,
        consecutive_failures INTEGER NOT NULL DEFAULT 0,
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
    `);
    // Tables made before tenants: their endpoints become the default tenant's, in place.
    const columns = d.prepare(`PRAGMA table_info(${T.endpoints})`).all() as { name: string }[];
    if (!columns.some((c) => c.name === 'tenant')) {
      d.exec(`ALTER TABLE ${T.endpoints} ADD COLUMN tenant TEXT NOT NULL DEFAULT '${DEFAULT_TENANT}'`);
    }
    d.exec(`CREATE INDEX IF NOT EXISTS ${T.endpoints}_tenant ON ${T.endpoints} (tenant, created_at)`);
    if (codec.encrypts) resealSecrets(d);
  };
  /** Plaintext secrets (from before `secretKeys`) and those of older keys, rewritten under the current key. */
  const resealSecrets = (d: Db) => {
    const rows = d.prepare(`SELECT id, secrets FROM ${T.endpoints}`).all() as {
      id: string;
      secrets: string;
    }[];
    const update = d.prepare(`UPDATE ${T.endpoints} SET secrets = ? WHERE id = ?`);
    for (const row of rows) {
      const resealed = codec.reseal(JSON.parse(row.secrets) as StoredSecret[], row.id);
      if (resealed) update.run(JSON.stringify(resealed), row.id);
    }
  };

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

  const toEndpoint = (r: EndpointRow): Endpoint => ({
    id: r.id,
    tenant: r.tenant,
    url: r.url,
    events: JSON.parse(r.events) as string[],
    secrets: (JSON.parse(r.secrets) as StoredSecret[]).map((s) => codec.read(s, r.id)),
    enabled: r.enabled === 1,
    ...(r.disabled_reason ? { disabledReason: r.disabled_reason as DisabledReason } : {}),
    consecutiveFailures: r.consecutive_failures,
    ...(r.rate_limit !== null ? { rateLimit: r.rate_limit } : {}),
    ...(r.description !== null ? { description: r.description } : {}),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  });

  const toDelivery = (r: DeliveryRow): Delivery => ({
    id: r.id,
    messageId: r.message_id,
    endpointId: r.endpoint_id,
    eventType: r.event_type,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    ...(r.lease_owner !== null ? { leaseOwner: r.lease_owner } : {}),
    ...(r.lease_until !== null ? { leaseUntil: r.lease_until } : {}),
    ...(r.last_error !== null ? { lastError: r.last_error } : {}),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    ...(r.finished_at !== null ? { finishedAt: r.finished_at } : {}),
  });

  const toAttempt = (r: AttemptRow): AttemptRecord => ({
    id: String(r.id),
    deliveryId: r.delivery_id,
    messageId: r.message_id,
    endpointId: r.endpoint_id,
    attempt: r.attempt,
    startedAt: r.started_at,
    durationMs: r.duration_ms,
    ...(r.status_code !== null ? { statusCode: r.status_code } : {}),
    ...(r.error_code !== null ? { errorCode: r.error_code } : {}),
    ...(r.error !== null ? { error: r.error } : {}),
    ...(r.response_snippet !== null ? { responseSnippet: r.response_snippet } : {}),
    outcome: r.outcome,
  });

  const selectEndpoint = (d: Db, id: string) =>
    stmt(d, `SELECT * FROM ${T.endpoints} WHERE id = ?`).get(id) as EndpointRow | undefined;
  // Tenant scoping binds `@tenant` (null: every tenant) next to the positional parameters.
  const ownTenant = `(@tenant IS NULL OR tenant = @tenant)`;
  /** Deliveries and attempts carry no tenant: they are their endpoint's. */
  const ofTenant = (column: string) =>
    `(@tenant IS NULL OR ${column} IN (SELECT id FROM ${T.endpoints} WHERE tenant = @tenant))`;
  const tenantOf = (scope: TenantScope | undefined) => ({ tenant: scopeTenant(scope, 'sqliteOutbox') });
  const selectScoped = (d: Db, id: string, tenant: { tenant: string | null }) =>
    stmt(d, `SELECT * FROM ${T.endpoints} WHERE id = ? AND ${ownTenant}`).get(id, tenant) as
      | EndpointRow
      | undefined;

  interface PendingCompletion {
    readonly input: CompleteInput;
    readonly resolve: (result: CompleteResult) => void;
    readonly reject: (error: unknown) => void;
  }
  let pendingCompletions: PendingCompletion[] = [];

  /**
   * `reset` holds the endpoints whose failure counter this batch already set to 0 with no failure
   * since: another success there would write nothing, so its statement is skipped.
   */
  const completeOne = (d: Db, input: CompleteInput, reset: Set<string>): CompleteResult => {
    const { delivery, resolution, attempt, now } = input;

    const finished = resolution.kind !== 'retry';
    const applied =
      stmt(d, SQL.completeUpdate).run(
        resolution.kind === 'retry' ? 'pending' : resolution.kind,
        resolution.kind === 'retry' ? resolution.nextAttemptAt : now,
        resolution.kind === 'succeeded' ? null : resolution.error,
        now,
        finished ? now : null,
        delivery.id,
        delivery.leaseOwner,
        delivery.attempt,
      ).changes > 0;
    // The attempt happened either way; history records it even when the lease was lost.
    stmt(d, SQL.attemptInsert).run(
      delivery.id,
      delivery.messageId,
      delivery.endpoint.id,
      delivery.attempt,
      attempt.startedAt,
      attempt.durationMs,
      attempt.statusCode ?? null,
      attempt.errorCode ?? null,
      attempt.error ?? null,
      attempt.responseSnippet ?? null,
      attempt.outcome,
    );
    if (!applied) return { applied: false };
    const endpointId = delivery.endpoint.id;
    if (attempt.outcome === 'succeeded') {
      if (reset.has(endpointId)) return { applied: true };
      stmt(d, SQL.resetFailures).run(endpointId);
      reset.add(endpointId);
      return { applied: true };
    }
    reset.delete(endpointId);
    const counted = stmt(d, SQL.countFailure).get(endpointId) as { consecutive_failures: number } | undefined;
    const threshold = input.disableAfterFailures;
    const reason: DisabledReason | undefined =
      input.disable ??
      (counted && threshold !== undefined && threshold > 0 && counted.consecutive_failures >= threshold
        ? 'consecutive_failures'
        : undefined);
    if (!reason) return { applied: true };
    const row = stmt(
      d,
      `UPDATE ${T.endpoints} SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ? AND enabled = 1
       RETURNING *`,
    ).get(reason, now, endpointId) as EndpointRow | undefined;
    return row ? { applied: true, disabled: { endpoint: toEndpoint(row), reason } } : { applied: true };
  };

  /** One claim, inside its write transaction. */
  const claimIn = (d: Db, options: ClaimOptions): ClaimedDelivery[] => {
    const limit = Math.floor(options.limit);
    if (!(limit > 0)) return [];
    const excluding = options.excludeEndpointIds !== undefined && options.excludeEndpointIds.length > 0;
    const excluded = excluding ? JSON.stringify(options.excludeEndpointIds) : undefined;
    type Row = { id: string; endpoint_id: string; rate_limit: number | null; rate_tat: number | null };
    const scan = (which: 'expired' | 'pending', n: number) => {
      const s = stmt(d, claimScanSql(n, excluding)[which]);
      return (excluded === undefined ? s.all(options.now) : s.all(options.now, excluded)) as Row[];
    };
    // Two index-ordered scans (expired leases, then due pending rows) that stop at the limit.
    const expired = scan('expired', limit);
    const candidates =
      expired.length >= limit ? expired : expired.concat(scan('pending', limit - expired.length));
    const { chosen, rateState } = pickCandidates(candidates, options);
    for (const [endpointId, tat] of rateState) {
      stmt(d, `UPDATE ${T.endpoints} SET rate_tat = ? WHERE id = ?`).run(tat, endpointId);
    }
    if (chosen.length === 0) return [];
    const leaseUntil = options.now + options.leaseMs;
    const ids = JSON.stringify(chosen);
    stmt(d, SQL.claimUpdate).run(options.owner, leaseUntil, options.now, ids);
    const rows = stmt(d, SQL.claimRead).all(ids) as {
      id: string;
      message_id: string;
      endpoint_id: string;
      attempts: number;
      event_type: string;
      body: string;
      headers: string;
      created_at: number;
    }[];
    const endpoints = new Map<string, Endpoint>();
    return rows.map((r) => {
      let endpoint = endpoints.get(r.endpoint_id);
      if (!endpoint) {
        endpoint = toEndpoint(selectEndpoint(d, r.endpoint_id) as EndpointRow);
        endpoints.set(r.endpoint_id, endpoint);
      }
      return {
        id: r.id,
        messageId: r.message_id,
        eventType: r.event_type,
        body: r.body,
        headers: r.headers === '{}' ? {} : (JSON.parse(r.headers) as Record<string, string>),
        attempt: r.attempts,
        leaseOwner: options.owner,
        leaseUntil,
        messageCreatedAt: r.created_at,
        endpoint,
      };
    });
  };

  // Transaction functions are made once per connection: building one per batch is measurable.
  const transactions = new WeakMap<
    Db,
    {
      complete: (d: Db, items: PendingCompletion[]) => CompleteResult[];
      claim: (d: Db, options: ClaimOptions) => ClaimedDelivery[];
    }
  >();
  const transactionsOf = (d: Db) => {
    let t = transactions.get(d);
    if (!t) {
      t = {
        complete: d.transaction((db: Db, items: PendingCompletion[]) => {
          const reset = new Set<string>();
          return items.map((item) => completeOne(db, item.input, reset));
        }).immediate,
        claim: d.transaction(claimIn).immediate,
      };
      transactions.set(d, t);
    }
    return t;
  };

  const flushCompletions = (d: Db) => {
    const items = pendingCompletions;
    pendingCompletions = [];
    let results: CompleteResult[];
    try {
      results = transactionsOf(d).complete(d, items);
    } catch (error) {
      // The batch rolled back: those deliveries stay leased and are retried when the lease expires.
      for (const item of items) item.reject(error);
      return;
    }
    for (let i = 0; i < items.length; i++)
      (items[i] as PendingCompletion).resolve(results[i] as CompleteResult);
  };

  const deliveryColumns = `d.*, m.event_type AS event_type`;
  const deliveryFrom = `${T.deliveries} d JOIN ${T.messages} m ON m.id = d.message_id`;

  const outbox: Outbox = {
    kind: 'sqlite',
    tenancy,
    async init() {
      await init();
    },

    async createEndpoint(input: NewEndpoint, now: number) {
      const d = await init();
      const tenant = resolveTenant(tenancy, input.tenant, 'createEndpoint');
      const id = input.id ?? randomId('ep');
      const secrets = [codec.store({ secret: input.secret, createdAt: now }, id)];
      try {
        stmt(
          d,
          `INSERT INTO ${T.endpoints} (id, tenant, url, events, secrets, rate_limit, description, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          id,
          tenant,
          input.url,
          JSON.stringify(input.events),
          JSON.stringify(secrets),
          input.rateLimit ?? null,
          input.description ?? null,
          now,
          now,
        );
      } catch (error) {
        throw new WebhookError('invalid_argument', `Endpoint "${id}" already exists`, { cause: error });
      }
      return toEndpoint(selectEndpoint(d, id) as EndpointRow);
    },

    async getEndpoint(id, scope) {
      const tenant = tenantOf(scope);
      const row = selectScoped(await init(), id, tenant);
      return row ? toEndpoint(row) : undefined;
    },

    async listEndpoints(scope) {
      const tenant = tenantOf(scope);
      const d = await init();
      return (
        stmt(d, `SELECT * FROM ${T.endpoints} WHERE ${ownTenant} ORDER BY created_at, id`).all(
          tenant,
        ) as EndpointRow[]
      ).map(toEndpoint);
    },

    async updateEndpoint(id, patch: EndpointPatch, now, scope) {
      const tenant = tenantOf(scope);
      const d = await init();
      return d
        .transaction(() => {
          const row = selectScoped(d, id, tenant);
          if (!row) return undefined;
          stmt(
            d,
            `UPDATE ${T.endpoints} SET url = ?, events = ?, description = ?, rate_limit = ?, updated_at = ?
             WHERE id = ?`,
          ).run(
            patch.url ?? row.url,
            patch.events ? JSON.stringify(patch.events) : row.events,
            patch.description === undefined ? row.description : patch.description,
            patch.rateLimit === undefined ? row.rate_limit : patch.rateLimit,
            now,
            id,
          );
          return toEndpoint(selectEndpoint(d, id) as EndpointRow);
        })
        .immediate();
    },

    async deleteEndpoint(id, scope) {
      const tenant = tenantOf(scope);
      const d = await init();
      return d
        .transaction(() => {
          if (!selectScoped(d, id, tenant)) return false;
          stmt(d, `DELETE FROM ${T.attempts} WHERE endpoint_id = ?`).run(id);
          stmt(d, `DELETE FROM ${T.deliveries} WHERE endpoint_id = ?`).run(id);
          return stmt(d, `DELETE FROM ${T.endpoints} WHERE id = ?`).run(id).changes > 0;
        })
        .immediate();
    },

    async rotateSecret(id, secret, now, overlapUntil, scope) {
      const tenant = tenantOf(scope);
      const d = await init();
      return d
        .transaction(() => {
          const row = selectScoped(d, id, tenant);
          if (!row) return undefined;
          const kept = (JSON.parse(row.secrets) as StoredSecret[])
            .filter((s) => s.expiresAt === undefined || s.expiresAt > now)
            .map((s) => ({ ...s, expiresAt: Math.min(s.expiresAt ?? overlapUntil, overlapUntil) }));
          const secrets = [...kept, codec.store({ secret, createdAt: now }, id)];
          stmt(d, `UPDATE ${T.endpoints} SET secrets = ?, updated_at = ? WHERE id = ?`).run(
            JSON.stringify(secrets),
            now,
            id,
          );
          return toEndpoint(selectEndpoint(d, id) as EndpointRow);
        })
        .immediate();
    },

    async enableEndpoint(id, now, scope) {
      const tenant = tenantOf(scope);
      const d = await init();
      return d
        .transaction(() => {
          const changed = stmt(
            d,
            `UPDATE ${T.endpoints} SET enabled = 1, disabled_reason = NULL, consecutive_failures = 0, updated_at = ?
           WHERE id = ? AND ${ownTenant}`,
          ).run(now, id, tenant).changes;
          if (changed === 0) return undefined;
          stmt(
            d,
            `UPDATE ${T.deliveries} SET next_attempt_at = ?, updated_at = ?
           WHERE endpoint_id = ? AND status = 'pending' AND next_attempt_at > ?`,
          ).run(now, now, id, now);
          return toEndpoint(selectEndpoint(d, id) as EndpointRow);
        })
        .immediate();
    },

    async disableEndpoint(id, reason, now, scope) {
      const tenant = tenantOf(scope);
      const d = await init();
      const row = stmt(
        d,
        `UPDATE ${T.endpoints} SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ? AND ${ownTenant}
         RETURNING *`,
      ).get(reason, now, id, tenant) as EndpointRow | undefined;
      return row ? toEndpoint(row) : undefined;
    },

    async enqueue(message: NewMessage, options: EnqueueOptions = {}): Promise<EnqueueResult> {
      const tenant = resolveTenant(tenancy, options.tenant, 'send');
      const own = await init();
      const d = options.tx === undefined ? own : asDb(options.tx);
      // A savepoint nests inside the caller's transaction and is a transaction of its own otherwise.
      return d
        .transaction(() => {
          const inserted = stmt(
            d,
            `INSERT OR IGNORE INTO ${T.messages} (id, event_type, body, headers, created_at) VALUES (?, ?, ?, ?, ?)`,
          ).run(
            message.id,
            message.eventType,
            message.body,
            JSON.stringify(message.headers),
            message.createdAt,
          );
          if (inserted.changes === 0) {
            // Same message id sent again: idempotent, the first send's deliveries stand.
            const ids = stmt(d, `SELECT id FROM ${T.deliveries} WHERE message_id = ? ORDER BY id`).all(
              message.id,
            ) as { id: string }[];
            return { messageId: message.id, deliveryIds: ids.map((r) => r.id) };
          }
          const only = options.endpointIds ? JSON.stringify(options.endpointIds) : null;
          // Delivery ids lead with the creation time (12 hex digits of ms) and end with 48 random bits:
          // inserts into the id indexes (deliveries, attempts by delivery) then append instead of
          // dirtying a random page each, and pages written per commit are most of a commit's cost.
          const rows = stmt(
            d,
            `INSERT INTO ${T.deliveries} (id, message_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at)
           SELECT 'dlv_' || printf('%012x', ?) || lower(hex(randomblob(6))), ?, e.id, 'pending', 0, ?, ?, ?
           FROM ${T.endpoints} e
           WHERE e.tenant = ?
             AND EXISTS (SELECT 1 FROM json_each(e.events) j WHERE j.value = ? OR j.value = '*')
             AND (? IS NULL OR e.id IN (SELECT value FROM json_each(?)))
           RETURNING id`,
          ).all(
            Math.max(0, Math.floor(message.createdAt)),
            message.id,
            message.createdAt,
            message.createdAt,
            message.createdAt,
            tenant,
            message.eventType,
            only,
            only,
          ) as { id: string }[];
          return { messageId: message.id, deliveryIds: rows.map((r) => r.id) };
        })
        .immediate();
    },

    async claim(options: ClaimOptions): Promise<ClaimedDelivery[]> {
      const d = await init();
      return transactionsOf(d).claim(d, options);
    },

    async complete(input: CompleteInput): Promise<CompleteResult> {
      const d = await init();
      // Completions that arrive in the same event-loop turn share one transaction (one WAL commit).
      return new Promise<CompleteResult>((resolve, reject) => {
        pendingCompletions.push({ input, resolve, reject });
        if (pendingCompletions.length === 1) setImmediate(() => flushCompletions(d));
      });
    },

    async release(delivery, now) {
      const d = await init();
      stmt(
        d,
        `UPDATE ${T.deliveries} SET status = 'pending', attempts = attempts - 1, lease_owner = NULL, lease_until = NULL,
           next_attempt_at = ?, updated_at = ?
         WHERE id = ? AND status = 'delivering' AND lease_owner = ? AND attempts = ?`,
      ).run(now, now, delivery.id, delivery.leaseOwner, delivery.attempt);
    },

    async redeliver(target: RedeliverTarget, now: number, scope?: TenantScope) {
      const tenant = tenantOf(scope);
      const d = await init();
      const set = `UPDATE ${T.deliveries} SET status = 'pending', attempts = 0, next_attempt_at = ?, last_error = NULL,
        finished_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = ?`;
      const scoped = ofTenant('endpoint_id');
      if ('messageId' in target) {
        const endpointId = target.endpointId ?? null;
        return stmt(
          d,
          `${set} WHERE message_id = ? AND (? IS NULL OR endpoint_id = ?) AND status IN ('succeeded', 'dead') AND ${scoped}`,
        ).run(now, now, target.messageId, endpointId, endpointId, tenant).changes;
      }
      if ('deliveryId' in target) {
        return stmt(d, `${set} WHERE id = ? AND status IN ('succeeded', 'dead') AND ${scoped}`).run(
          now,
          now,
          target.deliveryId,
          tenant,
        ).changes;
      }
      return stmt(
        d,
        `${set} WHERE endpoint_id = ? AND status = 'dead' AND finished_at >= ? AND finished_at < ? AND ${scoped}`,
      ).run(now, now, target.endpointId, target.from ?? 0, target.to ?? Number.MAX_SAFE_INTEGER, tenant)
        .changes;
    },

    async getDelivery(id, scope) {
      const tenant = tenantOf(scope);
      const d = await init();
      const row = stmt(
        d,
        `SELECT ${deliveryColumns} FROM ${deliveryFrom} WHERE d.id = ? AND ${ofTenant('d.endpoint_id')}`,
      ).get(id, tenant) as DeliveryRow | undefined;
      return row ? toDelivery(row) : undefined;
    },

    async listDeliveries(options: ListDeliveriesOptions = {}) {
      const tenant = tenantOf(options);
      const d = await init();
      const rows = stmt(
        d,
        `SELECT ${deliveryColumns} FROM ${deliveryFrom}
         WHERE (? IS NULL OR d.endpoint_id = ?) AND (? IS NULL OR d.message_id = ?) AND (? IS NULL OR d.status = ?)
           AND ${ofTenant('d.endpoint_id')}
         ORDER BY d.created_at DESC, d.id LIMIT ?`,
      ).all(
        options.endpointId ?? null,
        options.endpointId ?? null,
        options.messageId ?? null,
        options.messageId ?? null,
        options.status ?? null,
        options.status ?? null,
        options.limit ?? 100,
        tenant,
      ) as DeliveryRow[];
      return rows.map(toDelivery);
    },

    async listAttempts(options) {
      const tenant = tenantOf(options);
      const d = await init();
      const rows = stmt(
        d,
        `SELECT * FROM ${T.attempts}
         WHERE (? IS NULL OR delivery_id = ?) AND (? IS NULL OR endpoint_id = ?) AND ${ofTenant('endpoint_id')}
         ORDER BY id DESC LIMIT ?`,
      ).all(
        options.deliveryId ?? null,
        options.deliveryId ?? null,
        options.endpointId ?? null,
        options.endpointId ?? null,
        options.limit ?? 100,
        tenant,
      ) as AttemptRow[];
      return rows.map(toAttempt);
    },

    async nextDueAt() {
      const d = await init();
      const row = stmt(
        d,
        `SELECT min(t) AS t FROM (
           SELECT min(d.next_attempt_at) AS t FROM ${T.deliveries} d JOIN ${T.endpoints} e ON e.id = d.endpoint_id
             WHERE d.status = 'pending' AND e.enabled = 1
           UNION ALL
           SELECT min(d.lease_until) AS t FROM ${T.deliveries} d WHERE d.status = 'delivering')`,
      ).get() as { t: number | null };
      return row.t ?? undefined;
    },

    async close() {
      if (ownsDb && db) {
        db.close();
        db = undefined;
        ready = undefined;
      }
    },
  };
  return outbox;
}

function asDb(tx: unknown): Db {
  if (tx && typeof (tx as Db).prepare === 'function' && typeof (tx as Db).transaction === 'function')
    return tx as Db;
  throw new WebhookError(
    'invalid_argument',
    'send({ tx }): expected the better-sqlite3 Database of the transaction',
  );
}
