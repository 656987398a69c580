/**
 * `after − before` field by field, for a record read twice from counters that only grow
 * (pg_stat_database, pg_stat_user_tables, pg_stat_statements). Fields that are not numbers (a
 * statement's text) are taken from `after`.
 */
export function fieldDelta<T extends object>(after: T, before: T): T {
  const out: Record<string, unknown> = {};
  const b = before as Record<string, unknown>;
  for (const [key, value] of Object.entries(after)) {
    out[key] = typeof value === 'number' ? value - (b[key] as number) : value;
  }
  return out as T;
}
