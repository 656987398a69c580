/**
 * Row mapping shared by both outboxes: the tables have the same columns, and the databases differ
 * only in how a column's value arrives (SQLite: integers and JSON text; PostgreSQL: timestamptz,
 * arrays, jsonb, booleans), which a `Columns` decoder absorbs.
 */
import type { AttemptRecord, Delivery, DeliveryStatus, DisabledReason, Endpoint } from '../outbox.js';
import type { SecretCodec, StoredSecret } from '../secret-box.js';

export type Row = Readonly<Record<string, unknown>>;

/** How one database returns a column kind. */
export interface Columns {
  /** A timestamp column as milliseconds since the epoch. */
  time(value: unknown): number;
  /** The `events` column. */
  list(value: unknown): string[];
  /** A JSON column (`secrets`, `headers`). */
  json<T>(value: unknown): T;
  bool(value: unknown): boolean;
}

const present = (value: unknown): boolean => value !== null && value !== undefined;

export function toEndpoint(r: Row, columns: Columns, codec: SecretCodec): Endpoint {
  const id = r.id as string;
  return {
    id,
    tenant: r.tenant as string,
    url: codec.readUrl(r.url as string, id),
    events: columns.list(r.events),
    secrets: columns.json<StoredSecret[]>(r.secrets).map((s) => codec.read(s, id)),
    enabled: columns.bool(r.enabled),
    ...(r.disabled_reason ? { disabledReason: r.disabled_reason as DisabledReason } : {}),
    ...(present(r.verified_at) ? { verifiedAt: columns.time(r.verified_at) } : {}),
    consecutiveFailures: r.consecutive_failures as number,
    ...(present(r.failing_since) ? { failingSince: columns.time(r.failing_since) } : {}),
    ...(present(r.rate_limit) ? { rateLimit: Number(r.rate_limit) } : {}),
    ...(present(r.description) ? { description: r.description as string } : {}),
    createdAt: columns.time(r.created_at),
    updatedAt: columns.time(r.updated_at),
  };
}

/** A delivery row joined with its message's `event_type`. */
export function toDelivery(r: Row, columns: Columns): Delivery {
  return {
    id: r.id as string,
    messageId: r.message_id as string,
    endpointId: r.endpoint_id as string,
    eventType: r.event_type as string,
    status: r.status as DeliveryStatus,
    attempts: r.attempts as number,
    nextAttemptAt: columns.time(r.next_attempt_at),
    ...(present(r.lease_owner) ? { leaseOwner: r.lease_owner as string } : {}),
    ...(present(r.lease_until) ? { leaseUntil: columns.time(r.lease_until) } : {}),
    ...(present(r.last_error) ? { lastError: r.last_error as string } : {}),
    ...(present(r.ordering_key) ? { orderingKey: r.ordering_key as string } : {}),
    createdAt: columns.time(r.created_at),
    updatedAt: columns.time(r.updated_at),
    ...(present(r.finished_at) ? { finishedAt: columns.time(r.finished_at) } : {}),
  };
}

export function toAttempt(r: Row, columns: Columns): AttemptRecord {
  return {
    id: String(r.id),
    deliveryId: r.delivery_id as string,
    messageId: r.message_id as string,
    endpointId: r.endpoint_id as string,
    attempt: r.attempt as number,
    startedAt: columns.time(r.started_at),
    durationMs: Number(r.duration_ms),
    ...(present(r.status_code) ? { statusCode: r.status_code as number } : {}),
    ...(present(r.error_code) ? { errorCode: r.error_code as string } : {}),
    ...(present(r.error) ? { error: r.error as string } : {}),
    ...(present(r.response_snippet) ? { responseSnippet: r.response_snippet as string } : {}),
    outcome: r.outcome as 'succeeded' | 'failed',
  };
}

/** `headers` of a message: most are `{}`, which needs no parse. */
export function toHeaders(value: unknown, columns: Columns): Record<string, string> {
  return value === '{}' ? {} : columns.json<Record<string, string>>(value);
}

/** Secrets kept (made to expire at `overlapUntil`) by a rotation at `now`, before the new one. */
export function keptSecrets(
  stored: readonly StoredSecret[],
  now: number,
  overlapUntil: number,
): StoredSecret[] {
  return stored
    .filter((s) => s.expiresAt === undefined || s.expiresAt > now)
    .map((s) => ({ ...s, expiresAt: Math.min(s.expiresAt ?? overlapUntil, overlapUntil) }));
}
