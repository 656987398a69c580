/**
 * The PostgreSQL outbox on the user's `pg` Pool. Claims lock due rows with `FOR UPDATE SKIP LOCKED`
 * and lease them (owner + expiry), so any number of workers on any number of hosts share the work and
 * a worker that dies mid-delivery leaves it to another once the lease expires. Completions are fenced
 * on (owner, attempt), so a worker that lost its lease cannot overwrite the new holder's state.
 */
import type { Pool, PoolClient, QueryResultRow } from '../drivers/pg.js';
import { isWebhookError, WebhookError } from '../errors.js';
import { guardConnection, watchConnection } from '../pg-connection.js';
import { type ClaimCandidate, pickCandidates } from './claim-filter.js';
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

export interface PostgresOutboxOptions {
  /** Schema of the tables (created if missing); default `public`. */
  readonly schema?: string;
  /** Table name prefix; default `webhook_`. */
  readonly prefix?: string;
  /** `multi`: sends and new endpoints must name their tenant. Default `single` (see tenant.ts). */
  readonly tenancy?: Tenancy;
  /** Encrypt endpoint secrets at rest (AES-256-GCM); the first key encrypts, all decrypt. See secret-box.ts. */
  readonly secretKeys?: readonly SecretKey[];
}

type Queryable = Pick<PoolClient, 'query'>;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

const ms = (value: unknown): number =>
  value instanceof Date ? value.getTime() : new Date(String(value)).getTime();
const msOrUndefined = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : ms(value);
const date = (value: number): Date => new Date(value);

export function postgresOutbox(pool: Pool, options: PostgresOutboxOptions = {}): Outbox {
  const schema = options.schema ?? 'public';
  const prefix = options.prefix ?? 'webhook_';
  if (!IDENT.test(schema) || !IDENT.test(prefix)) {
    throw new WebhookError('invalid_config', 'postgresOutbox: schema and prefix must be SQL identifiers');
  }
  const tenancy = checkTenancy(options.tenancy, 'postgresOutbox');
  const codec = secretCodec(options.secretKeys, 'postgresOutbox');
  const t = (name: string) => `"${schema}"."${prefix}${name}"`;
  const T = {
    endpoints: t('endpoints'),
    messages: t('messages'),
    deliveries: t('deliveries'),
    attempts: t('attempts'),
  };
  let ready: Promise<void> | undefined;

  const q = async <R extends QueryResultRow>(db: Queryable, text: string, values: unknown[] = []) =>
    (await db.query<R>(text, values)).rows;

  // A dropped connection must fail the operation (the worker retries it), never the process.
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

  const init = (): Promise<void> => {
    ready ??= inTransaction(async (c) => {
      // Several workers may start at once: serialise the DDL so CREATE … IF NOT EXISTS cannot race.
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`gen-webhooks:${schema}.${prefix}`]);
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
          consecutive_failures integer NOT NULL DEFAULT 0,
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
      const [hasTenant] = await q(
        c,
        `SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name = 'tenant'`,
        [schema, `${prefix}endpoints`],
      );
      if (!hasTenant) {
        await c.query(
          `ALTER TABLE ${T.endpoints} ADD COLUMN tenant text NOT NULL DEFAULT '${DEFAULT_TENANT}'`,
        );
      }
      await c.query(
        `CREATE INDEX IF NOT EXISTS "${prefix}endpoints_tenant" ON ${T.endpoints} (tenant, created_at)`,
      );
      if (codec.encrypts) {
        // Plaintext secrets (from before `secretKeys`) and those of older keys, under the current key.
        // Only those rows are locked (and re-read), so a rotation committing meanwhile is kept.
        const stale = (await q(c, `SELECT id, secrets FROM ${T.endpoints}`))
          .filter((r) => codec.reseal(r.secrets as StoredSecret[], r.id as string) !== undefined)
          .map((r) => r.id as string);
        const locked =
          stale.length === 0
            ? []
            : await q(c, `SELECT id, secrets FROM ${T.endpoints} WHERE id = ANY ($1::text[]) FOR UPDATE`, [
                stale,
              ]);
        for (const row of locked) {
          const resealed = codec.reseal(row.secrets as StoredSecret[], row.id as string);
          if (resealed) {
            await c.query(`UPDATE ${T.endpoints} SET secrets = $2 WHERE id = $1`, [
              row.id,
              JSON.stringify(resealed),
            ]);
          }
        }
      }
    }).catch((error: unknown) => {
      ready = undefined;
      // A secret that does not decrypt (wrong or missing key) says so; anything else is the database.
      if (isWebhookError(error, 'invalid_key')) throw error;
      throw new WebhookError('store_error', 'Could not create the outbox tables', { cause: error });
    });
    return ready;
  };

  const toEndpoint = (r: QueryResultRow): Endpoint => ({
    id: r.id as string,
    tenant: r.tenant as string,
    url: r.url as string,
    events: r.events as string[],
    secrets: (r.secrets as StoredSecret[]).map((s) => codec.read(s, r.id as string)),
    enabled: r.enabled as boolean,
    ...(r.disabled_reason ? { disabledReason: r.disabled_reason as DisabledReason } : {}),
    consecutiveFailures: r.consecutive_failures as number,
    ...(r.rate_limit !== null && r.rate_limit !== undefined ? { rateLimit: Number(r.rate_limit) } : {}),
    ...(r.description !== null && r.description !== undefined
      ? { description: r.description as string }
      : {}),
    createdAt: ms(r.created_at),
    updatedAt: ms(r.updated_at),
  });

  const toDelivery = (r: QueryResultRow): Delivery => {
    const leaseUntil = msOrUndefined(r.lease_until);
    const finishedAt = msOrUndefined(r.finished_at);
    return {
      id: r.id as string,
      messageId: r.message_id as string,
      endpointId: r.endpoint_id as string,
      eventType: r.event_type as string,
      status: r.status as DeliveryStatus,
      attempts: r.attempts as number,
      nextAttemptAt: ms(r.next_attempt_at),
      ...(r.lease_owner !== null ? { leaseOwner: r.lease_owner as string } : {}),
      ...(leaseUntil !== undefined ? { leaseUntil } : {}),
      ...(r.last_error !== null ? { lastError: r.last_error as string } : {}),
      createdAt: ms(r.created_at),
      updatedAt: ms(r.updated_at),
      ...(finishedAt !== undefined ? { finishedAt } : {}),
    };
  };

  const toAttempt = (r: QueryResultRow): AttemptRecord => ({
    id: String(r.id),
    deliveryId: r.delivery_id as string,
    messageId: r.message_id as string,
    endpointId: r.endpoint_id as string,
    attempt: r.attempt as number,
    startedAt: ms(r.started_at),
    durationMs: Number(r.duration_ms),
    ...(r.status_code !== null ? { statusCode: r.status_code as number } : {}),
    ...(r.error_code !== null ? { errorCode: r.error_code as string } : {}),
    ...(r.error !== null ? { error: r.error as string } : {}),
    ...(r.response_snippet !== null ? { responseSnippet: r.response_snippet as string } : {}),
    outcome: r.outcome as 'succeeded' | 'failed',
  });

  const tenantOf = (scope: TenantScope | undefined) => scopeTenant(scope, 'postgresOutbox');
  /** Rows of `$n`'s tenant (null: every tenant). Deliveries and attempts are their endpoint's. */
  const ownTenant = (n: number) => `($${n}::text IS NULL OR tenant = $${n})`;
  const ofTenant = (column: string, n: number) =>
    `($${n}::text IS NULL OR ${column} IN (SELECT id FROM ${T.endpoints} WHERE tenant = $${n}))`;

  const deliverySelect = `SELECT d.*, m.event_type FROM ${T.deliveries} d JOIN ${T.messages} m ON m.id = d.message_id`;

  const toClaimed = (r: QueryResultRow, owner: string, leaseUntil: number): ClaimedDelivery => ({
    id: r.delivery_id as string,
    messageId: r.delivery_message_id as string,
    eventType: r.message_event_type as string,
    body: r.message_body as string,
    headers: r.message_headers as Record<string, string>,
    attempt: r.delivery_attempts as number,
    leaseOwner: owner,
    leaseUntil,
    messageCreatedAt: ms(r.message_created_at),
    endpoint: toEndpoint(r),
  });

  /** Claim with rate limits: lock, decide slots on fresh endpoint rate state, lease; one transaction. */
  const claimLimited = (options: ClaimOptions, onlyLimited: boolean): Promise<ClaimedDelivery[]> =>
    inTransaction(async (c) => {
      const now = date(options.now);
      const excluded = [...(options.excludeEndpointIds ?? [])];
      // Expired leases first (a crashed worker's work), then due pending rows in due order.
      const filter = `e.enabled AND NOT (d.endpoint_id = ANY ($2::text[]))${onlyLimited ? ' AND e.rate_limit IS NOT NULL' : ''}`;
      const expired = await q(
        c,
        `SELECT d.id, d.endpoint_id, e.rate_limit, e.rate_tat FROM ${T.deliveries} d
           JOIN ${T.endpoints} e ON e.id = d.endpoint_id
           WHERE d.status = 'delivering' AND d.lease_until <= $1 AND ${filter}
           ORDER BY d.lease_until LIMIT $3 FOR UPDATE OF d SKIP LOCKED`,
        [now, excluded, options.limit],
      );
      const pending =
        expired.length >= options.limit
          ? []
          : await q(
              c,
              `SELECT d.id, d.endpoint_id, e.rate_limit, e.rate_tat FROM ${T.deliveries} d
                 JOIN ${T.endpoints} e ON e.id = d.endpoint_id
                 WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND ${filter}
                 ORDER BY d.next_attempt_at LIMIT $3 FOR UPDATE OF d SKIP LOCKED`,
              [now, excluded, options.limit - expired.length],
            );
      const candidates: ClaimCandidate[] = [...expired, ...pending].map((r) => ({
        id: r.id as string,
        endpoint_id: r.endpoint_id as string,
        rate_limit: r.rate_limit === null ? null : Number(r.rate_limit),
        rate_tat: r.rate_tat === null ? null : ms(r.rate_tat),
      }));
      if (candidates.length === 0) return [];
      let picked = pickCandidates(candidates, options);
      if (picked.rateState.length > 0) {
        // Rate state is shared by every worker: lock those endpoint rows and decide on fresh values.
        const limitedIds = [
          ...new Set(candidates.filter((x) => isLimited(x, options)).map((x) => x.endpoint_id)),
        ];
        const fresh = await q(
          c,
          `SELECT id, rate_tat FROM ${T.endpoints} WHERE id = ANY ($1::text[]) FOR UPDATE`,
          [limitedIds],
        );
        const tats = new Map(fresh.map((r) => [r.id as string, r.rate_tat === null ? null : ms(r.rate_tat)]));
        picked = pickCandidates(
          candidates.map((x) =>
            tats.has(x.endpoint_id) ? { ...x, rate_tat: tats.get(x.endpoint_id) ?? null } : x,
          ),
          options,
        );
        for (const [endpointId, tat] of picked.rateState) {
          await c.query(`UPDATE ${T.endpoints} SET rate_tat = $2 WHERE id = $1`, [endpointId, date(tat)]);
        }
      }
      if (picked.chosen.length === 0) return [];
      const rows = await q(
        c,
        `WITH u AS (
             UPDATE ${T.deliveries} SET status = 'delivering', attempts = attempts + 1, lease_owner = $2,
               lease_until = $3, updated_at = $4
             WHERE id = ANY ($1::text[]) RETURNING id, message_id, endpoint_id, attempts
           )
           SELECT u.id AS delivery_id, u.message_id AS delivery_message_id, u.attempts AS delivery_attempts, m.event_type AS message_event_type,
                  m.body AS message_body, m.headers AS message_headers, m.created_at AS message_created_at, e.*
           FROM u JOIN ${T.messages} m ON m.id = u.message_id JOIN ${T.endpoints} e ON e.id = u.endpoint_id`,
        [picked.chosen, options.owner, date(options.now + options.leaseMs), now],
      );
      return rows.map((r) => toClaimed(r, options.owner, options.now + options.leaseMs));
    });

  const completeOn = async (db: Queryable, input: CompleteInput): Promise<CompleteResult> => {
    const { delivery, resolution, attempt, now } = input;
    const failed = attempt.outcome !== 'succeeded';
    const [row] = await q(
      db,
      `WITH d AS (
           UPDATE ${T.deliveries}
           SET status = $4, next_attempt_at = $5, lease_owner = NULL, lease_until = NULL, last_error = $6,
               updated_at = $7, finished_at = $8
           WHERE id = $1 AND status = 'delivering' AND lease_owner = $2 AND attempts = $3
           RETURNING id
         ), a AS (
           INSERT INTO ${T.attempts} (delivery_id, message_id, endpoint_id, attempt, started_at, duration_ms,
             status_code, error_code, error, response_snippet, outcome)
           VALUES ($1, $9, $10, $3, $11, $12, $13, $14, $15, $16, $17)
         ), e AS (
           UPDATE ${T.endpoints}
           SET consecutive_failures = CASE WHEN $18 THEN consecutive_failures + 1 ELSE 0 END
           WHERE id = $10 AND EXISTS (SELECT 1 FROM d) AND ($18 OR consecutive_failures <> 0)
           RETURNING consecutive_failures
         )
         SELECT (SELECT count(*) FROM d)::int AS applied, (SELECT consecutive_failures FROM e) AS failures`,
      [
        delivery.id,
        delivery.leaseOwner,
        delivery.attempt,
        resolution.kind === 'retry' ? 'pending' : resolution.kind,
        date(resolution.kind === 'retry' ? resolution.nextAttemptAt : now),
        resolution.kind === 'succeeded' ? null : resolution.error,
        date(now),
        resolution.kind === 'retry' ? null : date(now),
        delivery.messageId,
        delivery.endpoint.id,
        date(attempt.startedAt),
        attempt.durationMs,
        attempt.statusCode ?? null,
        attempt.errorCode ?? null,
        attempt.error ?? null,
        attempt.responseSnippet ?? null,
        attempt.outcome,
        failed,
      ],
    );
    if (row?.applied !== 1) return { applied: false };
    if (!failed) return { applied: true };
    const threshold = input.disableAfterFailures;
    const failures = row.failures === null ? 0 : Number(row.failures);
    const reason: DisabledReason | undefined =
      input.disable ??
      (threshold !== undefined && threshold > 0 && failures >= threshold
        ? 'consecutive_failures'
        : undefined);
    if (!reason) return { applied: true };
    // Conditional on `enabled`, so exactly one completion reports (and hooks) the disabling.
    const [disabled] = await q(
      db,
      `UPDATE ${T.endpoints} SET enabled = false, disabled_reason = $2, updated_at = $3
         WHERE id = $1 AND enabled RETURNING *`,
      [delivery.endpoint.id, reason, date(now)],
    );
    return disabled
      ? { applied: true, disabled: { endpoint: toEndpoint(disabled), reason } }
      : { applied: true };
  };

  interface PendingCompletion {
    readonly input: CompleteInput;
    readonly resolve: (result: CompleteResult) => void;
    readonly reject: (error: unknown) => void;
  }
  let pendingCompletions: PendingCompletion[] = [];
  let flushing = false;

  /**
   * Completions that queue up while a batch commits share the next transaction (one commit, so
   * throughput is not bound by commit latency). Items are applied in endpoint order so concurrent
   * batches of different workers lock endpoint rows in the same order.
   */
  const flushCompletions = async (): Promise<void> => {
    if (flushing || pendingCompletions.length === 0) return;
    flushing = true;
    const items = pendingCompletions.sort((a, b) =>
      a.input.delivery.endpoint.id === b.input.delivery.endpoint.id
        ? a.input.delivery.id.localeCompare(b.input.delivery.id)
        : a.input.delivery.endpoint.id.localeCompare(b.input.delivery.endpoint.id),
    );
    pendingCompletions = [];
    try {
      const results =
        items.length === 1
          ? [await completeOn(pool, (items[0] as PendingCompletion).input)]
          : await inTransaction(async (c) => {
              const out: CompleteResult[] = [];
              for (const item of items) out.push(await completeOn(c, item.input));
              return out;
            });
      for (const [i, item] of items.entries()) item.resolve(results[i] as CompleteResult);
    } catch {
      // The batch rolled back (e.g. a deadlock with another worker): apply the items one by one.
      for (const item of items) await completeOn(pool, item.input).then(item.resolve, item.reject);
    } finally {
      flushing = false;
    }
    void flushCompletions();
  };

  const outbox: Outbox = {
    kind: 'postgres',
    tenancy,
    init,

    async createEndpoint(input: NewEndpoint, now: number) {
      const tenant = resolveTenant(tenancy, input.tenant, 'createEndpoint');
      await init();
      const id = input.id ?? randomId('ep');
      const secrets = [codec.store({ secret: input.secret, createdAt: now }, id)];
      const rows = await q(
        pool,
        `INSERT INTO ${T.endpoints} (id, url, events, secrets, rate_limit, description, created_at, updated_at, tenant)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8) ON CONFLICT (id) DO NOTHING RETURNING *`,
        [
          id,
          input.url,
          input.events,
          JSON.stringify(secrets),
          input.rateLimit ?? null,
          input.description ?? null,
          date(now),
          tenant,
        ],
      );
      const row = rows[0];
      if (!row) throw new WebhookError('invalid_argument', `Endpoint "${id}" already exists`);
      return toEndpoint(row);
    },

    async getEndpoint(id, scope) {
      const tenant = tenantOf(scope);
      await init();
      const [row] = await q(pool, `SELECT * FROM ${T.endpoints} WHERE id = $1 AND ${ownTenant(2)}`, [
        id,
        tenant,
      ]);
      return row ? toEndpoint(row) : undefined;
    },

    async listEndpoints(scope) {
      const tenant = tenantOf(scope);
      await init();
      return (
        await q(pool, `SELECT * FROM ${T.endpoints} WHERE ${ownTenant(1)} ORDER BY created_at, id`, [tenant])
      ).map(toEndpoint);
    },

    async updateEndpoint(id, patch: EndpointPatch, now, scope) {
      const tenant = tenantOf(scope);
      await init();
      // A patch field that is absent keeps the column ($n IS FALSE); null clears an optional one.
      const [row] = await q(
        pool,
        `UPDATE ${T.endpoints} SET
           url = COALESCE($3, url),
           events = COALESCE($4::text[], events),
           description = CASE WHEN $5 THEN $6 ELSE description END,
           rate_limit = CASE WHEN $7 THEN $8::double precision ELSE rate_limit END,
           updated_at = $9
         WHERE id = $1 AND ${ownTenant(2)} RETURNING *`,
        [
          id,
          tenant,
          patch.url ?? null,
          patch.events ? [...patch.events] : null,
          patch.description !== undefined,
          patch.description ?? null,
          patch.rateLimit !== undefined,
          patch.rateLimit ?? null,
          date(now),
        ],
      );
      return row ? toEndpoint(row) : undefined;
    },

    async deleteEndpoint(id, scope) {
      const tenant = tenantOf(scope);
      await init();
      return (
        (await pool.query(`DELETE FROM ${T.endpoints} WHERE id = $1 AND ${ownTenant(2)}`, [id, tenant]))
          .rowCount === 1
      );
    },

    async rotateSecret(id, secret, now, overlapUntil, scope) {
      const tenant = tenantOf(scope);
      await init();
      return inTransaction(async (c) => {
        const [row] = await q(
          c,
          `SELECT * FROM ${T.endpoints} WHERE id = $1 AND ${ownTenant(2)} FOR UPDATE`,
          [id, tenant],
        );
        if (!row) return undefined;
        const kept = (row.secrets as StoredSecret[])
          .filter((s) => s.expiresAt === undefined || s.expiresAt > now)
          .map((s) => ({ ...s, expiresAt: Math.min(s.expiresAt ?? overlapUntil, overlapUntil) }));
        const [updated] = await q(
          c,
          `UPDATE ${T.endpoints} SET secrets = $2, updated_at = $3 WHERE id = $1 RETURNING *`,
          [id, JSON.stringify([...kept, codec.store({ secret, createdAt: now }, id)]), date(now)],
        );
        return updated ? toEndpoint(updated) : undefined;
      });
    },

    async enableEndpoint(id, now, scope) {
      const tenant = tenantOf(scope);
      await init();
      return inTransaction(async (c) => {
        const [row] = await q(
          c,
          `UPDATE ${T.endpoints} SET enabled = true, disabled_reason = NULL, consecutive_failures = 0, updated_at = $2
           WHERE id = $1 AND ${ownTenant(3)} RETURNING *`,
          [id, date(now), tenant],
        );
        if (!row) return undefined;
        await c.query(
          `UPDATE ${T.deliveries} SET next_attempt_at = $2, updated_at = $2
           WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at > $2`,
          [id, date(now)],
        );
        return toEndpoint(row);
      });
    },

    async disableEndpoint(id, reason, now, scope) {
      const tenant = tenantOf(scope);
      await init();
      const [row] = await q(
        pool,
        `UPDATE ${T.endpoints} SET enabled = false, disabled_reason = $2, updated_at = $3
         WHERE id = $1 AND ${ownTenant(4)} RETURNING *`,
        [id, reason, date(now), tenant],
      );
      return row ? toEndpoint(row) : undefined;
    },

    async enqueue(message: NewMessage, options: EnqueueOptions = {}): Promise<EnqueueResult> {
      const tenant = resolveTenant(tenancy, options.tenant, 'send');
      await init();
      const db = options.tx === undefined ? pool : asClient(options.tx);
      // One statement, so it is atomic on its own and joins the caller's transaction when given one.
      // Delivery ids lead with the creation time (see the SQLite outbox): index inserts append.
      const rows = await q<{ id: string | null; inserted: boolean }>(
        db,
        `WITH m AS (
           INSERT INTO ${T.messages} (id, event_type, body, headers, created_at)
           VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING RETURNING id
         ), d AS (
           INSERT INTO ${T.deliveries} (id, message_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at)
           SELECT 'dlv_' || lpad(to_hex($7::bigint), 12, '0') || substr(replace(gen_random_uuid()::text, '-', ''), 1, 20),
             m.id, e.id, 'pending', 0, $5, $5, $5
           FROM m CROSS JOIN ${T.endpoints} e
           WHERE e.tenant = $8 AND ($2 = ANY (e.events) OR '*' = ANY (e.events))
             AND ($6::text[] IS NULL OR e.id = ANY ($6::text[]))
           RETURNING id
         )
         SELECT d.id, true AS inserted FROM d
         UNION ALL SELECT NULL, true FROM m
         UNION ALL SELECT x.id, false FROM ${T.deliveries} x WHERE x.message_id = $1 AND NOT EXISTS (SELECT 1 FROM m)`,
        [
          message.id,
          message.eventType,
          message.body,
          JSON.stringify(message.headers),
          date(message.createdAt),
          options.endpointIds ? [...options.endpointIds] : null,
          Math.max(0, Math.floor(message.createdAt)),
          tenant,
        ],
      );
      return {
        messageId: message.id,
        deliveryIds: rows.flatMap((r) => (r.id === null ? [] : [r.id])).sort(),
      };
    },

    async claim(options: ClaimOptions): Promise<ClaimedDelivery[]> {
      await init();
      if (options.defaultRateLimit !== undefined) return claimLimited(options, false);
      // Endpoints without a rate limit: one autocommit statement locks (SKIP LOCKED), caps per
      // endpoint and leases; rate-limited endpoints take the transactional path with what is left.
      const fast = await q(
        pool,
        `WITH expired AS (
           SELECT d.id, d.endpoint_id, d.lease_until AS due FROM ${T.deliveries} d
           JOIN ${T.endpoints} e ON e.id = d.endpoint_id
           WHERE d.status = 'delivering' AND d.lease_until <= $1 AND e.enabled AND e.rate_limit IS NULL
             AND NOT (d.endpoint_id = ANY ($2::text[]))
           ORDER BY d.lease_until LIMIT $3 FOR UPDATE OF d SKIP LOCKED
         ), pending AS (
           SELECT d.id, d.endpoint_id, d.next_attempt_at AS due FROM ${T.deliveries} d
           JOIN ${T.endpoints} e ON e.id = d.endpoint_id
           WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND e.enabled AND e.rate_limit IS NULL
             AND NOT (d.endpoint_id = ANY ($2::text[]))
           ORDER BY d.next_attempt_at LIMIT $3 FOR UPDATE OF d SKIP LOCKED
         ), ranked AS (
           SELECT id, due, row_number() OVER (PARTITION BY endpoint_id ORDER BY due) AS rn
           FROM (SELECT * FROM expired UNION ALL SELECT * FROM pending) x
         ), chosen AS (
           SELECT id FROM ranked WHERE rn <= $4 ORDER BY due LIMIT $3
         ), u AS (
           UPDATE ${T.deliveries} d SET status = 'delivering', attempts = d.attempts + 1, lease_owner = $5,
             lease_until = $6, updated_at = $1
           FROM chosen WHERE d.id = chosen.id
           RETURNING d.id, d.message_id, d.endpoint_id, d.attempts
         )
         SELECT u.id AS delivery_id, u.message_id AS delivery_message_id, u.attempts AS delivery_attempts,
                m.event_type AS message_event_type, m.body AS message_body, m.headers AS message_headers,
                m.created_at AS message_created_at, e.*
         FROM u JOIN ${T.messages} m ON m.id = u.message_id JOIN ${T.endpoints} e ON e.id = u.endpoint_id`,
        [
          date(options.now),
          [...(options.excludeEndpointIds ?? [])],
          options.limit,
          options.perEndpointLimit ?? options.limit,
          options.owner,
          date(options.now + options.leaseMs),
        ],
      );
      const claimed = fast.map((r) => toClaimed(r, options.owner, options.now + options.leaseMs));
      if (claimed.length >= options.limit) return claimed;
      return [
        ...claimed,
        ...(await claimLimited({ ...options, limit: options.limit - claimed.length }, true)),
      ];
    },

    async complete(input: CompleteInput): Promise<CompleteResult> {
      await init();
      return new Promise<CompleteResult>((resolve, reject) => {
        pendingCompletions.push({ input, resolve, reject });
        if (!flushing && pendingCompletions.length === 1) setImmediate(() => void flushCompletions());
      });
    },

    async release(delivery, now) {
      await init();
      await pool.query(
        `UPDATE ${T.deliveries} SET status = 'pending', attempts = attempts - 1, lease_owner = NULL,
           lease_until = NULL, next_attempt_at = $4, updated_at = $4
         WHERE id = $1 AND status = 'delivering' AND lease_owner = $2 AND attempts = $3`,
        [delivery.id, delivery.leaseOwner, delivery.attempt, date(now)],
      );
    },

    async redeliver(target: RedeliverTarget, now: number, scope?: TenantScope) {
      const tenant = tenantOf(scope);
      await init();
      const set = `UPDATE ${T.deliveries} SET status = 'pending', attempts = 0, next_attempt_at = $1, last_error = NULL,
        finished_at = NULL, lease_owner = NULL, lease_until = NULL, updated_at = $1`;
      let result: { rowCount: number | null };
      if ('messageId' in target) {
        result = await pool.query(
          `${set} WHERE message_id = $2 AND ($3::text IS NULL OR endpoint_id = $3) AND status IN ('succeeded', 'dead')
             AND ${ofTenant('endpoint_id', 4)}`,
          [date(now), target.messageId, target.endpointId ?? null, tenant],
        );
      } else if ('deliveryId' in target) {
        result = await pool.query(
          `${set} WHERE id = $2 AND status IN ('succeeded', 'dead') AND ${ofTenant('endpoint_id', 3)}`,
          [date(now), target.deliveryId, tenant],
        );
      } else {
        result = await pool.query(
          `${set} WHERE endpoint_id = $2 AND status = 'dead'
             AND ($3::timestamptz IS NULL OR finished_at >= $3) AND ($4::timestamptz IS NULL OR finished_at < $4)
             AND ${ofTenant('endpoint_id', 5)}`,
          [
            date(now),
            target.endpointId,
            target.from === undefined ? null : date(target.from),
            target.to === undefined ? null : date(target.to),
            tenant,
          ],
        );
      }
      return result.rowCount ?? 0;
    },

    async getDelivery(id, scope) {
      const tenant = tenantOf(scope);
      await init();
      const [row] = await q(pool, `${deliverySelect} WHERE d.id = $1 AND ${ofTenant('d.endpoint_id', 2)}`, [
        id,
        tenant,
      ]);
      return row ? toDelivery(row) : undefined;
    },

    async listDeliveries(options: ListDeliveriesOptions = {}) {
      const tenant = tenantOf(options);
      await init();
      const rows = await q(
        pool,
        `${deliverySelect}
         WHERE ($1::text IS NULL OR d.endpoint_id = $1) AND ($2::text IS NULL OR d.message_id = $2)
           AND ($3::text IS NULL OR d.status = $3) AND ${ofTenant('d.endpoint_id', 5)}
         ORDER BY d.created_at DESC, d.id LIMIT $4`,
        [
          options.endpointId ?? null,
          options.messageId ?? null,
          options.status ?? null,
          options.limit ?? 100,
          tenant,
        ],
      );
      return rows.map(toDelivery);
    },

    async listAttempts(options) {
      const tenant = tenantOf(options);
      await init();
      const rows = await q(
        pool,
        `SELECT * FROM ${T.attempts}
         WHERE ($1::text IS NULL OR delivery_id = $1) AND ($2::text IS NULL OR endpoint_id = $2)
           AND ${ofTenant('endpoint_id', 4)}
         ORDER BY id DESC LIMIT $3`,
        [options.deliveryId ?? null, options.endpointId ?? null, options.limit ?? 100, tenant],
      );
      return rows.map(toAttempt);
    },

    async nextDueAt() {
      await init();
      const [row] = await q(
        pool,
        `SELECT least(
           (SELECT min(d.next_attempt_at) FROM ${T.deliveries} d JOIN ${T.endpoints} e ON e.id = d.endpoint_id
             WHERE d.status = 'pending' AND e.enabled),
           (SELECT min(lease_until) FROM ${T.deliveries} WHERE status = 'delivering')) AS t`,
      );
      return row ? msOrUndefined(row.t) : undefined;
    },

    async close() {
      // The pool is the user's: they end it.
    },
  };
  return outbox;
}

function isLimited(c: ClaimCandidate, options: ClaimOptions): boolean {
  const limit = c.rate_limit ?? options.defaultRateLimit;
  return limit !== undefined && limit > 0;
}

function asClient(tx: unknown): Queryable {
  if (tx && typeof (tx as Queryable).query === 'function') return tx as Queryable;
  throw new WebhookError('invalid_argument', 'send({ tx }): expected a pg client inside BEGIN');
}
