/**
 * The PostgreSQL delivery queue: enqueue (one statement, so it is atomic alone and joins the caller's
 * transaction when given one), claims, releases, redelivery and delivery reads.
 */
import type {
  DeliveryQueue,
  EnqueueOptions,
  EnqueueResult,
  ListDeliveriesOptions,
  NewMessage,
  RedeliverTarget,
  TenantScope,
} from '../../outbox.js';
import { resolveTenant } from '../../tenant.js';
import { toDelivery } from '../rows.js';
import { pgClaim } from './claim.js';
import { asClient, date, type PgContext, pgColumns, type Queryable } from './context.js';

export function pgQueue(ctx: PgContext): DeliveryQueue {
  const { T, q, pool, tenantOf, ofTenant } = ctx;
  const lockSpace = `gen-webhooks:${T.schema}.${T.prefix}:ordering:`;

  /** One statement, so it is atomic alone and joins the caller's transaction when given one. */
  const insert = async (
    db: Queryable,
    message: NewMessage,
    tenant: string,
    options: EnqueueOptions,
  ): Promise<EnqueueResult> => {
    // Delivery ids lead with the creation time (see the SQLite queue): index inserts append.
    const rows = await q<{ id: string | null; inserted: boolean }>(
      db,
      `WITH m AS (
         INSERT INTO ${T.messages} (id, event_type, body, headers, created_at)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING RETURNING id
       ), d AS (
         INSERT INTO ${T.deliveries} (id, message_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at,
           ordering_key, ordering_seq)
         SELECT 'dlv_' || lpad(to_hex($7::bigint), 12, '0') || substr(replace(gen_random_uuid()::text, '-', ''), 1, 20),
           m.id, e.id, 'pending', 0, $5, $5, $5, $9::text, CASE WHEN $9::text IS NULL THEN NULL ELSE nextval('${T.orderingSeq}') END
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
        options.orderingKey ?? null,
      ],
    );
    return { messageId: message.id, deliveryIds: rows.flatMap((r) => (r.id === null ? [] : [r.id])).sort() };
  };

  const deliverySelect = `SELECT d.*, m.event_type FROM ${T.deliveries} d JOIN ${T.messages} m ON m.id = d.message_id`;

  return {
    async enqueue(message: NewMessage, options: EnqueueOptions = {}): Promise<EnqueueResult> {
      const tenant = resolveTenant(ctx.tenancy, options.tenant, 'send');
      await ctx.init();
      const db = options.tx === undefined ? pool : asClient(options.tx);
      const key = options.orderingKey;
      if (key === undefined) return insert(db, message, tenant, options);
      // An ordered send draws its place under a lock on its key held to commit, so the places of
      // one key become visible in order: a worker never sees a later one without the earlier ones.
      const ordered = async (c: Queryable) => {
        await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${lockSpace}${key}`]);
        return insert(c, message, tenant, options);
      };
      return options.tx === undefined ? ctx.inTransaction(ordered) : ordered(db);
    },

    claim: pgClaim(ctx),

    async release(delivery, now) {
      await ctx.init();
      await pool.query(
        `UPDATE ${T.deliveries} SET status = 'pending', attempts = attempts - 1, lease_owner = NULL,
           lease_until = NULL, next_attempt_at = $4, updated_at = $4
         WHERE id = $1 AND status = 'delivering' AND lease_owner = $2 AND attempts = $3`,
        [delivery.id, delivery.leaseOwner, delivery.attempt, date(now)],
      );
    },

    async redeliver(target: RedeliverTarget, now: number, scope?: TenantScope) {
      const tenant = tenantOf(scope);
      await ctx.init();
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
      await ctx.init();
      const [row] = await q(pool, `${deliverySelect} WHERE d.id = $1 AND ${ofTenant('d.endpoint_id', 2)}`, [
        id,
        tenant,
      ]);
      return row ? toDelivery(row, pgColumns) : undefined;
    },

    async listDeliveries(options: ListDeliveriesOptions = {}) {
      const tenant = tenantOf(options);
      await ctx.init();
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
      return rows.map((r) => toDelivery(r, pgColumns));
    },

    async nextDueAt() {
      await ctx.init();
      // Each min() is one step of its partial index in order (rows of disabled endpoints skipped
      // through a hashed list of them), not a read of every pending row: schedulers poll this.
      const [row] = await q(
        pool,
        `SELECT least(
           (SELECT min(d.next_attempt_at) FROM ${T.deliveries} d
             WHERE d.status = 'pending'
               AND d.endpoint_id NOT IN (SELECT x.id FROM ${T.endpoints} x WHERE NOT x.enabled)),
           (SELECT min(lease_until) FROM ${T.deliveries} WHERE status = 'delivering')) AS t`,
      );
      return row?.t === null || row?.t === undefined ? undefined : pgColumns.time(row.t);
    },
  };
}
