/**
 * Per-endpoint rate limiting as GCRA (generic cell rate algorithm): the endpoint row stores one
 * timestamp, the "theoretical arrival time", so the limit holds across every worker that claims from
 * the same outbox. A burst of up to one second's worth of deliveries is allowed.
 */

export interface SlotGrant {
  /** How many deliveries may start now. */
  readonly granted: number;
  /** The new theoretical arrival time to store. */
  readonly tat: number;
}

/** Takes up to `wanted` slots at `now` for an endpoint limited to `perSecond` deliveries per second. */
export function takeSlots(
  tat: number | undefined,
  now: number,
  perSecond: number,
  wanted: number,
): SlotGrant {
  const interval = 1000 / perSecond;
  const tolerance = interval * (Math.max(1, Math.floor(perSecond)) - 1);
  let t = Math.max(tat ?? now, now);
  let granted = 0;
  while (granted < wanted && t - now <= tolerance) {
    t += interval;
    granted++;
  }
  return { granted, tat: granted === 0 ? (tat ?? now) : t };
}
