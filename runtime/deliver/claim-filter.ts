/** The part of a claim both outboxes share: per-endpoint caps and rate limits over due candidates. */
import type { ClaimOptions } from './outbox.js';
import { takeSlots } from './rate-limit.js';

export interface ClaimCandidate {
  readonly id: string;
  readonly endpoint_id: string;
  readonly rate_limit: number | null;
  /** Rate state (theoretical arrival time, ms) of the endpoint. */
  readonly rate_tat: number | null;
}

export interface Picked {
  /** Delivery ids to lease. */
  readonly chosen: string[];
  /** New rate state per endpoint, to store inside the claim transaction. */
  readonly rateState: Array<readonly [endpointId: string, tat: number]>;
}

/** Applies the per-endpoint claim cap and rate limits to due candidates (given in due order). */
export function pickCandidates(candidates: readonly ClaimCandidate[], options: ClaimOptions): Picked {
  const perEndpoint = new Map<string, string[]>();
  const rate = new Map<string, { limit: number; tat: number | null }>();
  for (const c of candidates) {
    const list = perEndpoint.get(c.endpoint_id) ?? [];
    if (list.length >= (options.perEndpointLimit ?? Number.POSITIVE_INFINITY)) continue;
    list.push(c.id);
    perEndpoint.set(c.endpoint_id, list);
    const limit = c.rate_limit ?? options.defaultRateLimit;
    if (limit !== undefined && limit > 0) rate.set(c.endpoint_id, { limit, tat: c.rate_tat });
  }
  const chosen: string[] = [];
  const rateState: Array<readonly [string, number]> = [];
  for (const [endpointId, ids] of perEndpoint) {
    const limited = rate.get(endpointId);
    if (!limited) {
      chosen.push(...ids);
      continue;
    }
    const grant = takeSlots(limited.tat ?? undefined, options.now, limited.limit, ids.length);
    if (grant.granted > 0) rateState.push([endpointId, grant.tat]);
    chosen.push(...ids.slice(0, grant.granted));
  }
  return { chosen, rateState };
}
