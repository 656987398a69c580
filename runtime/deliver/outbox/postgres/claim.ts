/**
 * The PostgreSQL claim. Endpoints without a rate limit: one autocommit statement locks due rows
 * (`FOR UPDATE SKIP LOCKED`, so concurrent workers never take the same row), caps per endpoint and
 * leases. Rate-limited endpoints take a transaction that decides slots on freshly locked rate state.
 */
import { type ClaimCandidate, pickCandidates } from '../../claim-filter.js';
import type { ClaimedDelivery, ClaimOptions, Endpoint } from '../../outbox.js';
import { type Row, toHeaders } from '../rows.js';
import { date, ms, type PgContext, pgColumns, prepared } from './context.js';

export function pgClaim(ctx: PgContext): (options: ClaimOptions) => Promise<ClaimedDelivery[]> {
  const { T, q, qp, pool } = ctx;
  const claimedColumns = `u.id AS delivery_id, u.message_id AS delivery_message_id, u.attempts AS delivery_attempts,
    m.event_type AS message_event_type, m.body AS message_body, m.headers AS message_headers,
    m.created_at AS message_created_at, e.*`;
  const claimedFrom = `u JOIN ${T.messages} m ON m.id = u.message_id JOIN ${T.endpoints} e ON e.id = u.endpoint_id`;

  /**
   * Rows of disabled and rate-limited endpoints are skipped through one hashed list of those
   * endpoints (built once per claim from a partial index), not an endpoint lookup per candidate row:
   * with statistics that under-count the due rows (a table analysed while small, then a backlog) the
   * planner reads every due row through the partial index and sorts them, and a lookup per row made
   * that claim cost milliseconds per thousand due rows. Deliveries are read alone, so the
   * per-endpoint index is never the way in.
   */
  const unlimitedEndpoint = `d.endpoint_id NOT IN (SELECT x.id FROM ${T.endpoints} x
     WHERE NOT x.enabled OR x.rate_limit IS NOT NULL)`;
  /** Whether the rate-limited claim has anything to look at (an indexed probe of the same rows). */
  const anyLimited = `EXISTS (SELECT 1 FROM ${T.endpoints} x
     WHERE (NOT x.enabled OR x.rate_limit IS NOT NULL) AND x.enabled AND x.rate_limit IS NOT NULL)`;
  // A keyed delivery waits for every earlier unfinished one of its key and endpoint.
  const headOfKey = `(d.ordering_key IS NULL OR NOT EXISTS (SELECT 1 FROM ${T.deliveries} p
     WHERE p.endpoint_id = d.endpoint_id AND p.ordering_key = d.ordering_key
       AND p.status IN ('pending', 'delivering') AND p.ordering_seq < d.ordering_seq))`;

  /**
   * The claimed rows, their endpoints decoded once per endpoint per claim (secrets included): a
   * batch's deliveries to one endpoint share its object, as the worker's signing cache expects.
   */
  const toClaimedRows = (rows: Row[], owner: string, leaseUntil: number): ClaimedDelivery[] => {
    const endpoints = new Map<string, Endpoint>();
    return rows.map((r) => {
      let endpoint = endpoints.get(r.id as string);
      if (!endpoint) {
        endpoint = ctx.toEndpoint(r);
        endpoints.set(endpoint.id, endpoint);
      }
      return toClaimed(r, owner, leaseUntil, endpoint);
    });
  };

  const toClaimed = (r: Row, owner: string, leaseUntil: number, endpoint: Endpoint): ClaimedDelivery => ({
    id: r.delivery_id as string,
    messageId: r.delivery_message_id as string,
    eventType: r.message_event_type as string,
    body: r.message_body as string,
    headers: toHeaders(r.message_headers, pgColumns),
    attempt: r.delivery_attempts as number,
    leaseOwner: owner,
    leaseUntil,
    messageCreatedAt: ms(r.message_created_at),
    endpoint,
  });

  /**
   * Prepared: after its first runs the server may keep a generic plan, made without the values, which
   * walks the pending index in due order and stops at the limit instead of sorting every due row.
   */
  const unlimitedClaim = prepared(
    `WITH expired AS (
       SELECT d.id, d.endpoint_id, d.lease_until AS due FROM ${T.deliveries} d
       WHERE d.status = 'delivering' AND d.lease_until <= $1
         AND NOT (d.endpoint_id = ANY ($2::text[])) AND ${unlimitedEndpoint} AND ${headOfKey}
       ORDER BY d.lease_until LIMIT $3 FOR UPDATE OF d SKIP LOCKED
     ), pending AS (
       SELECT d.id, d.endpoint_id, d.next_attempt_at AS due FROM ${T.deliveries} d
       WHERE d.status = 'pending' AND d.next_attempt_at <= $1
         AND NOT (d.endpoint_id = ANY ($2::text[])) AND ${unlimitedEndpoint} AND ${headOfKey}
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
     SELECT f.any_limited, c.* FROM (SELECT ${anyLimited} AS any_limited) f
     LEFT JOIN (SELECT ${claimedColumns} FROM ${claimedFrom}) c ON true`,
  );

  /** One autocommit statement; `limited` says whether any enabled endpoint has a rate limit. */
  const unlimited = async (
    options: ClaimOptions,
  ): Promise<{ claimed: ClaimedDelivery[]; limited: boolean }> => {
    const rows = await qp(pool, unlimitedClaim, [
      date(options.now),
      [...(options.excludeEndpointIds ?? [])],
      options.limit,
      options.perEndpointLimit ?? options.limit,
      options.owner,
      date(options.now + options.leaseMs),
    ]);
    // Always one row at least (the flag); a claimed delivery per row otherwise.
    const claimed = toClaimedRows(
      rows.filter((r) => r.delivery_id !== null),
      options.owner,
      options.now + options.leaseMs,
    );
    return { claimed, limited: rows[0]?.any_limited === true };
  };

  /** Claim with rate limits: lock, decide slots on fresh endpoint rate state, lease; one transaction. */
  const limited = (options: ClaimOptions, onlyLimited: boolean): Promise<ClaimedDelivery[]> =>
    ctx.inTransaction(async (c) => {
      const now = date(options.now);
      const excluded = [...(options.excludeEndpointIds ?? [])];
      // Expired leases first (a crashed worker's work), then due pending rows in due order.
      const filter = `e.enabled AND NOT (d.endpoint_id = ANY ($2::text[]))${onlyLimited ? ' AND e.rate_limit IS NOT NULL' : ''}`;
      const scan = (status: string, column: string, limit: number) =>
        q(
          c,
          `SELECT d.id, d.endpoint_id, e.rate_limit, e.rate_tat FROM ${T.deliveries} d
             CROSS JOIN LATERAL (SELECT * FROM ${T.endpoints} e WHERE e.id = d.endpoint_id OFFSET 0) e
             WHERE d.status = '${status}' AND d.${column} <= $1 AND ${filter} AND ${headOfKey}
             ORDER BY d.${column} LIMIT $3 FOR UPDATE OF d SKIP LOCKED`,
          [now, excluded, limit],
        );
      const expired = await scan('delivering', 'lease_until', options.limit);
      const pending =
        expired.length >= options.limit
          ? []
          : await scan('pending', 'next_attempt_at', options.limit - expired.length);
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
         SELECT ${claimedColumns} FROM ${claimedFrom}`,
        [picked.chosen, options.owner, date(options.now + options.leaseMs), now],
      );
      return toClaimedRows(rows, options.owner, options.now + options.leaseMs);
    });

  return async (options) => {
    await ctx.init();
    if (options.defaultRateLimit !== undefined) return limited(options, false);
    const { claimed, limited: anyLimited } = await unlimited(options);
    if (claimed.length >= options.limit || !anyLimited) return claimed;
    return [...claimed, ...(await limited({ ...options, limit: options.limit - claimed.length }, true))];
  };
}

function isLimited(c: ClaimCandidate, options: ClaimOptions): boolean {
  const limit = c.rate_limit ?? options.defaultRateLimit;
  return limit !== undefined && limit > 0;
}
