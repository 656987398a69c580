/**
 * The SQLite claim: in one `BEGIN IMMEDIATE` transaction (shared with the turn's completions:
 * turn-writes.ts), scan expired leases then due pending rows (index order, stopping at the limit),
 * apply per-endpoint caps and rate limits, lease the chosen rows and read them back with their
 * messages and endpoints.
 */

import { pickCandidates } from '../../claim-filter.js';
import type { ClaimedDelivery, ClaimOptions, Endpoint } from '../../outbox.js';
import { type Row, toHeaders } from '../rows.js';
import { type Db, type SqliteContext, sqliteColumns } from './context.js';

type Candidate = { id: string; endpoint_id: string; rate_limit: number | null; rate_tat: number | null };

export function sqliteClaim(ctx: SqliteContext): (options: ClaimOptions) => Promise<ClaimedDelivery[]> {
  const { T, stmt } = ctx;
  const claimUpdate = `UPDATE ${T.deliveries} SET status = 'delivering', attempts = attempts + 1, lease_owner = ?, lease_until = ?,
       updated_at = ?
     WHERE id IN (SELECT value FROM json_each(?))`;
  // The claimed rows with their messages in one statement, in the order chosen.
  const claimRead = `SELECT d.id, d.message_id, d.endpoint_id, d.attempts, m.event_type, m.body, m.headers, m.created_at
     FROM json_each(?) j JOIN ${T.deliveries} d ON d.id = j.value JOIN ${T.messages} m ON m.id = d.message_id`;

  /**
   * The two candidate scans (expired leases, then due pending rows), per limit and with or without
   * excluded endpoints. The limit is written into the SQL: a bound LIMIT makes SQLite re-prepare the
   * statement on every run (~10 µs here), and `json_each` of an empty exclusion list costs as much
   * again, so the usual claim (nothing excluded) has no exclusion clause at all. Limits are small
   * integers (free worker slots), so there are few of these.
   */
  // A keyed delivery waits for every earlier unfinished one of its key and endpoint (rowid order).
  const headOfKey = `(d.ordering_key IS NULL OR NOT EXISTS (SELECT 1 FROM ${T.deliveries} p
     WHERE p.endpoint_id = d.endpoint_id AND p.ordering_key = d.ordering_key
       AND p.status IN ('pending', 'delivering') AND p.rowid < d.rowid))`;
  const scans = new Map<number, { expired: string; pending: string }>();
  const scanSql = (limit: number, excluding: boolean): { expired: string; pending: string } => {
    const key = excluding ? -limit : limit;
    let sql = scans.get(key);
    if (!sql) {
      const exclude = excluding ? 'AND d.endpoint_id NOT IN (SELECT value FROM json_each(?))' : '';
      const scan = (status: string, column: string) => `SELECT d.id, d.endpoint_id, e.rate_limit, e.rate_tat
         FROM ${T.deliveries} d JOIN ${T.endpoints} e ON e.id = d.endpoint_id
         WHERE d.status = '${status}' AND d.${column} <= ? AND e.enabled = 1 ${exclude} AND ${headOfKey}
         ORDER BY d.${column} LIMIT ${limit}`;
      sql = { expired: scan('delivering', 'lease_until'), pending: scan('pending', 'next_attempt_at') };
      scans.set(key, sql);
    }
    return sql;
  };

  const claimIn = (d: Db, options: ClaimOptions): ClaimedDelivery[] => {
    const limit = Math.floor(options.limit);
    if (!(limit > 0)) return [];
    const excluding = options.excludeEndpointIds !== undefined && options.excludeEndpointIds.length > 0;
    const excluded = excluding ? JSON.stringify(options.excludeEndpointIds) : undefined;
    const scan = (which: 'expired' | 'pending', n: number) => {
      const s = stmt(d, scanSql(n, excluding)[which]);
      return (excluded === undefined ? s.all(options.now) : s.all(options.now, excluded)) as Candidate[];
    };
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
    stmt(d, claimUpdate).run(options.owner, leaseUntil, options.now, ids);
    const rows = stmt(d, claimRead).all(ids) as Row[];
    const endpoints = new Map<string, Endpoint>();
    return rows.map((r) => {
      const endpointId = r.endpoint_id as string;
      let endpoint = endpoints.get(endpointId);
      if (!endpoint) {
        endpoint = ctx.toEndpoint(ctx.selectEndpoint(d, endpointId) as Row);
        endpoints.set(endpointId, endpoint);
      }
      return {
        id: r.id as string,
        messageId: r.message_id as string,
        eventType: r.event_type as string,
        body: r.body as string,
        headers: toHeaders(r.headers, sqliteColumns),
        attempt: r.attempts as number,
        leaseOwner: options.owner,
        leaseUntil,
        messageCreatedAt: r.created_at as number,
        endpoint,
      };
    });
  };

  return (options) => ctx.writeInTurn((d) => claimIn(d, options));
}
