/**
 * The SQLite delivery queue: enqueue (a message and its fan-out, atomically, inside the caller's
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
import { type Row, toDelivery } from '../rows.js';
import { sqliteClaim } from './claim.js';
import { asDb, type Db, immediateOn, type SqliteContext, sqliteColumns } from './context.js';

export function sqliteQueue(ctx: SqliteContext): DeliveryQueue {
  const { T, stmt, tenantOf, ofTenant } = ctx;
  const deliveryColumns = `d.*, m.event_type AS event_type`;
  const deliveryFrom = `${T.deliveries} d JOIN ${T.messages} m ON m.id = d.message_id`;

  const enqueueIn = (d: Db, message: NewMessage, options: EnqueueOptions, tenant: string): EnqueueResult => {
    const inserted = stmt(
      d,
      `INSERT OR IGNORE INTO ${T.messages} (id, event_type, body, headers, created_at) VALUES (?, ?, ?, ?, ?)`,
    ).run(message.id, message.eventType, message.body, JSON.stringify(message.headers), message.createdAt);
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
      `INSERT INTO ${T.deliveries} (id, message_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at,
         ordering_key)
       SELECT 'dlv_' || printf('%012x', ?) || lower(hex(randomblob(6))), ?, e.id, 'pending', 0, ?, ?, ?, ?
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
      options.orderingKey ?? null,
      tenant,
      message.eventType,
      only,
      only,
    ) as { id: string }[];
    return { messageId: message.id, deliveryIds: rows.map((r) => r.id) };
  };
  // A savepoint nests inside the caller's transaction and is a transaction of its own otherwise.
  const enqueueOn = immediateOn(enqueueIn);

  return {
    async enqueue(message: NewMessage, options: EnqueueOptions = {}): Promise<EnqueueResult> {
      const tenant = resolveTenant(ctx.tenancy, options.tenant, 'send');
      const own = await ctx.db();
      const d = options.tx === undefined ? own : asDb(options.tx);
      return enqueueOn(d)(d, message, options, tenant);
    },

    claim: sqliteClaim(ctx),

    async release(delivery, now) {
      const d = await ctx.db();
      stmt(
        d,
        `UPDATE ${T.deliveries} SET status = 'pending', attempts = attempts - 1, lease_owner = NULL, lease_until = NULL,
           next_attempt_at = ?, updated_at = ?
         WHERE id = ? AND status = 'delivering' AND lease_owner = ? AND attempts = ?`,
      ).run(now, now, delivery.id, delivery.leaseOwner, delivery.attempt);
    },

    async redeliver(target: RedeliverTarget, now: number, scope?: TenantScope) {
      const tenant = tenantOf(scope);
      const d = await ctx.db();
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
      const d = await ctx.db();
      const row = stmt(
        d,
        `SELECT ${deliveryColumns} FROM ${deliveryFrom} WHERE d.id = ? AND ${ofTenant('d.endpoint_id')}`,
      ).get(id, tenant) as Row | undefined;
      return row ? toDelivery(row, sqliteColumns) : undefined;
    },

    async listDeliveries(options: ListDeliveriesOptions = {}) {
      const tenant = tenantOf(options);
      const d = await ctx.db();
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
      ) as Row[];
      return rows.map((r) => toDelivery(r, sqliteColumns));
    },

    async nextDueAt() {
      const d = await ctx.db();
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
  };
}
