/** `gen-webhooks outbox` on a SQLite file: the operator queries over the runtime's tables. */
import { sqliteOutbox } from '@gen-webhooks/runtime';
import type BetterSqlite3 from 'better-sqlite3';
import {
  type DeliveryFilter,
  type DeliveryRow,
  EMPTY_COUNTS,
  type EndpointDeadLetters,
  loadDriver,
  missingTables,
  type OutboxAdmin,
} from './outbox-store.js';

export async function openSqliteAdmin(command: string, file: string, prefix: string): Promise<OutboxAdmin> {
  const mod = await loadDriver(
    command,
    'better-sqlite3',
    async () => (await import('better-sqlite3')) as unknown as { default: typeof BetterSqlite3 },
  );
  const db = new mod.default(file, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  const T = {
    e: `${prefix}endpoints`,
    m: `${prefix}messages`,
    d: `${prefix}deliveries`,
    a: `${prefix}attempts`,
  };
  const has = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(T.d);
  if (!has) {
    db.close();
    throw missingTables(command, file, T.d);
  }
  const where = `(@status IS NULL OR d.status = @status) AND (@endpoint IS NULL OR d.endpoint_id = @endpoint)
    AND (@tenant IS NULL OR e.tenant = @tenant) AND (@event IS NULL OR m.event_type = @event)
    AND coalesce(d.finished_at, d.created_at) >= @since AND coalesce(d.finished_at, d.created_at) < @until`;
  const from = `${T.d} d JOIN ${T.m} m ON m.id = d.message_id JOIN ${T.e} e ON e.id = d.endpoint_id`;
  const params = (f: DeliveryFilter) => ({
    status: f.status ?? null,
    endpoint: f.endpointId ?? null,
    tenant: f.tenant ?? null,
    event: f.eventType ?? null,
    since: f.since ?? 0,
    until: f.until ?? Number.MAX_SAFE_INTEGER,
  });

  return {
    kind: 'sqlite',
    label: file,
    outbox: sqliteOutbox(db, { prefix }),
    async stats(tenant) {
      const t = { tenant: tenant ?? null };
      const own = `(@tenant IS NULL OR e.tenant = @tenant)`;
      const counts = { ...EMPTY_COUNTS };
      for (const r of db
        .prepare(
          `SELECT d.status, count(*) AS n FROM ${T.d} d JOIN ${T.e} e ON e.id = d.endpoint_id WHERE ${own} GROUP BY d.status`,
        )
        .all(t) as { status: keyof typeof counts; n: number }[]) {
        counts[r.status] = r.n;
      }
      const endpoints = db
        .prepare(
          `SELECT count(*) AS total, coalesce(sum(enabled = 0), 0) AS disabled FROM ${T.e} e WHERE ${own}`,
        )
        .get(t) as { total: number; disabled: number };
      const oldest = db
        .prepare(
          `SELECT min(d.created_at) AS t FROM ${T.d} d JOIN ${T.e} e ON e.id = d.endpoint_id WHERE d.status = 'pending' AND ${own}`,
        )
        .get(t) as { t: number | null };
      const dead = db
        .prepare(
          `SELECT d.endpoint_id, e.tenant, e.url, e.enabled, count(*) AS dead, max(d.finished_at) AS newest
           FROM ${T.d} d JOIN ${T.e} e ON e.id = d.endpoint_id WHERE d.status = 'dead' AND ${own}
           GROUP BY d.endpoint_id ORDER BY dead DESC, d.endpoint_id LIMIT 20`,
        )
        .all(t) as {
        endpoint_id: string;
        tenant: string;
        url: string;
        enabled: number;
        dead: number;
        newest: number;
      }[];
      return {
        deliveries: counts,
        endpoints,
        oldestPendingAt: oldest.t,
        deadByEndpoint: dead.map(
          (r): EndpointDeadLetters => ({
            endpointId: r.endpoint_id,
            tenant: r.tenant,
            url: r.url,
            enabled: r.enabled === 1,
            dead: r.dead,
            newestAt: r.newest,
          }),
        ),
      };
    },
    async list(filter) {
      const rows = db
        .prepare(
          `SELECT d.id, d.message_id, d.endpoint_id, e.tenant, e.url, m.event_type, d.status, d.attempts, d.last_error,
             d.created_at, d.finished_at
           FROM ${from} WHERE ${where}
           ORDER BY coalesce(d.finished_at, d.created_at) DESC, d.id LIMIT @limit`,
        )
        .all({ ...params(filter), limit: filter.limit ?? -1 }) as Record<string, unknown>[];
      return rows.map(
        (r): DeliveryRow => ({
          id: r.id as string,
          messageId: r.message_id as string,
          endpointId: r.endpoint_id as string,
          tenant: r.tenant as string,
          url: r.url as string,
          eventType: r.event_type as string,
          status: r.status as DeliveryRow['status'],
          attempts: r.attempts as number,
          lastError: (r.last_error as string | null) ?? null,
          createdAt: r.created_at as number,
          finishedAt: (r.finished_at as number | null) ?? null,
        }),
      );
    },
    async purge(filter) {
      return db
        .transaction(() => {
          const rows = db
            .prepare(`SELECT d.id, d.message_id FROM ${from} WHERE ${where}`)
            .all(params(filter)) as {
            id: string;
            message_id: string;
          }[];
          const ids = JSON.stringify(rows.map((r) => r.id));
          const messageIds = JSON.stringify([...new Set(rows.map((r) => r.message_id))]);
          db.prepare(`DELETE FROM ${T.a} WHERE delivery_id IN (SELECT value FROM json_each(?))`).run(ids);
          const deliveries = db
            .prepare(`DELETE FROM ${T.d} WHERE id IN (SELECT value FROM json_each(?))`)
            .run(ids).changes;
          const messages = db
            .prepare(
              `DELETE FROM ${T.m} WHERE id IN (SELECT value FROM json_each(?))
               AND NOT EXISTS (SELECT 1 FROM ${T.d} d WHERE d.message_id = ${T.m}.id)`,
            )
            .run(messageIds).changes;
          return { deliveries, messages };
        })
        .immediate();
    },
    async close() {
      db.close();
    },
  };
}
