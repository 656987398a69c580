/** `gen-webhooks outbox` on PostgreSQL: the operator queries over the runtime's tables. */
import { postgresOutbox } from '@gen-webhooks/runtime';
import type pg from 'pg';
import { GeneratorError } from '../errors.js';
import {
  type DeliveryFilter,
  type DeliveryRow,
  EMPTY_COUNTS,
  loadDriver,
  missingTables,
  type OutboxAdmin,
} from './outbox-store.js';

const ms = (value: unknown): number =>
  value instanceof Date ? value.getTime() : new Date(String(value)).getTime();

/** The URL for messages: never its password. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.href;
  } catch {
    return 'postgres://…';
  }
}

export async function openPostgresAdmin(
  command: string,
  url: string,
  schema: string,
  prefix: string,
): Promise<OutboxAdmin> {
  const mod = await loadDriver(
    command,
    'pg',
    async () => (await import('pg')) as unknown as { default: typeof pg },
  );
  const label = redact(url);
  const pool = new mod.default.Pool({ connectionString: url, max: 2 });
  const t = (name: string) => `"${schema}"."${prefix}${name}"`;
  const T = { e: t('endpoints'), m: t('messages'), d: t('deliveries'), a: t('attempts') };
  let present: { r: string | null } | undefined;
  try {
    present = (await pool.query<{ r: string | null }>('SELECT to_regclass($1) AS r', [T.d])).rows[0];
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new GeneratorError(
      'network_error',
      `${command}: cannot query ${label}: ${(error as Error).message}`,
      {
        expected: 'a reachable PostgreSQL URL (--db or DATABASE_URL)',
        cause: error,
      },
    );
  }
  if (!present?.r) {
    await pool.end();
    throw missingTables(command, label, T.d);
  }
  const from = `${T.d} d JOIN ${T.m} m ON m.id = d.message_id JOIN ${T.e} e ON e.id = d.endpoint_id`;
  const where = `($1::text IS NULL OR d.status = $1) AND ($2::text IS NULL OR d.endpoint_id = $2)
    AND ($3::text IS NULL OR e.tenant = $3) AND ($4::text IS NULL OR m.event_type = $4)
    AND coalesce(d.finished_at, d.created_at) >= $5 AND coalesce(d.finished_at, d.created_at) < $6`;
  const params = (f: DeliveryFilter) => [
    f.status ?? null,
    f.endpointId ?? null,
    f.tenant ?? null,
    f.eventType ?? null,
    new Date(f.since ?? 0),
    new Date(f.until ?? 8_640_000_000_000_000),
  ];

  return {
    kind: 'postgres',
    label,
    outbox: postgresOutbox(pool, { schema, prefix }),
    async stats(tenant) {
      const own = `($1::text IS NULL OR e.tenant = $1)`;
      const args = [tenant ?? null];
      const counts = { ...EMPTY_COUNTS };
      const byStatus = await pool.query<{ status: keyof typeof counts; n: string }>(
        `SELECT d.status, count(*) AS n FROM ${T.d} d JOIN ${T.e} e ON e.id = d.endpoint_id WHERE ${own} GROUP BY d.status`,
        args,
      );
      for (const r of byStatus.rows) counts[r.status] = Number(r.n);
      const endpoints = (
        await pool.query<{ total: string; disabled: string }>(
          `SELECT count(*) AS total, count(*) FILTER (WHERE NOT enabled) AS disabled FROM ${T.e} e WHERE ${own}`,
          args,
        )
      ).rows[0];
      const oldest = (
        await pool.query<{ t: Date | null }>(
          `SELECT min(d.created_at) AS t FROM ${T.d} d JOIN ${T.e} e ON e.id = d.endpoint_id WHERE d.status = 'pending' AND ${own}`,
          args,
        )
      ).rows[0];
      const dead = await pool.query(
        `SELECT d.endpoint_id, e.tenant, e.url, e.enabled, count(*) AS dead, max(d.finished_at) AS newest
         FROM ${T.d} d JOIN ${T.e} e ON e.id = d.endpoint_id WHERE d.status = 'dead' AND ${own}
         GROUP BY d.endpoint_id, e.tenant, e.url, e.enabled ORDER BY dead DESC, d.endpoint_id LIMIT 20`,
        args,
      );
      return {
        deliveries: counts,
        endpoints: { total: Number(endpoints?.total ?? 0), disabled: Number(endpoints?.disabled ?? 0) },
        oldestPendingAt: oldest?.t ? ms(oldest.t) : null,
        deadByEndpoint: dead.rows.map((r) => ({
          endpointId: r.endpoint_id as string,
          tenant: r.tenant as string,
          url: r.url as string,
          enabled: r.enabled as boolean,
          dead: Number(r.dead),
          newestAt: ms(r.newest),
        })),
      };
    },
    async list(filter) {
      const rows = await pool.query(
        `SELECT d.id, d.message_id, d.endpoint_id, e.tenant, e.url, m.event_type, d.status, d.attempts, d.last_error,
           d.created_at, d.finished_at
         FROM ${from} WHERE ${where}
         ORDER BY coalesce(d.finished_at, d.created_at) DESC, d.id LIMIT $7`,
        [...params(filter), filter.limit ?? null],
      );
      return rows.rows.map(
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
          createdAt: ms(r.created_at),
          finishedAt: r.finished_at ? ms(r.finished_at) : null,
        }),
      );
    },
    async purge(filter) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        // Attempts go with their deliveries (ON DELETE CASCADE).
        const gone = await client.query<{ message_id: string }>(
          `DELETE FROM ${T.d} WHERE id IN (SELECT d.id FROM ${from} WHERE ${where}) RETURNING message_id`,
          params(filter),
        );
        const messages = await client.query(
          `DELETE FROM ${T.m} m WHERE m.id = ANY($1::text[])
           AND NOT EXISTS (SELECT 1 FROM ${T.d} d WHERE d.message_id = m.id)`,
          [[...new Set(gone.rows.map((r) => r.message_id))]],
        );
        await client.query('COMMIT');
        return { deliveries: gone.rowCount ?? 0, messages: messages.rowCount ?? 0 };
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}
