/**
 * The worker's claimed deliveries by endpoint: those in flight (holding a connection slot) and those
 * claimed ahead, queued until a slot of their endpoint frees up. An endpoint at its in-flight cap is
 * still claimed ahead (up to the cap again): a backlog on one endpoint then keeps the claims full,
 * where excluding the endpoint until its attempts ended made every other claim an empty round trip
 * and every claim look like the last due work (a poll interval's wait after each).
 */
import type { ClaimedDelivery } from './outbox.js';

export class ClaimedQueue {
  readonly #queued: ClaimedDelivery[] = [];
  readonly #inFlight = new Map<string, number>();
  /** In flight + queued, per endpoint. */
  readonly #held = new Map<string, number>();
  readonly #perEndpoint: number;

  constructor(perEndpoint: number) {
    this.#perEndpoint = perEndpoint;
  }

  /** Queued deliveries (not in flight). */
  get length(): number {
    return this.#queued.length;
  }

  /**
   * Queues a claim's deliveries in their order; true when some endpoint got `perEndpoint` of them,
   * i.e. the claim's per-endpoint cap may have left more of its due work behind.
   */
  admit(batch: readonly ClaimedDelivery[]): boolean {
    const counts = new Map<string, number>();
    let capped = false;
    for (const delivery of batch) {
      const id = delivery.endpoint.id;
      const n = (counts.get(id) ?? 0) + 1;
      counts.set(id, n);
      if (n >= this.#perEndpoint) capped = true;
      this.#queued.push(delivery);
      bump(this.#held, id, 1);
    }
    return capped;
  }

  /** The first queued delivery whose endpoint has a free slot, taken out of the queue. */
  take(): ClaimedDelivery | undefined {
    const queued = this.#queued;
    for (let i = 0; i < queued.length; i++) {
      const delivery = queued[i] as ClaimedDelivery;
      const id = delivery.endpoint.id;
      if (!this.hasSlot(id)) continue;
      if (i === 0) queued.shift();
      else queued.splice(i, 1);
      bump(this.#held, id, -1);
      return delivery;
    }
    return undefined;
  }

  hasSlot(endpointId: string): boolean {
    return (this.#inFlight.get(endpointId) ?? 0) < this.#perEndpoint;
  }

  started(endpointId: string): void {
    bump(this.#inFlight, endpointId, 1);
    bump(this.#held, endpointId, 1);
  }

  ended(endpointId: string): void {
    bump(this.#inFlight, endpointId, -1);
    bump(this.#held, endpointId, -1);
  }

  /** In flight + queued for the endpoint. */
  held(endpointId: string): number {
    return this.#held.get(endpointId) ?? 0;
  }

  /** Endpoints with at least `limit` deliveries in flight (`inFlightOnly`) or held. */
  atLeast(limit: number, inFlightOnly: boolean): string[] {
    const out: string[] = [];
    for (const [id, n] of inFlightOnly ? this.#inFlight : this.#held) if (n >= limit) out.push(id);
    return out;
  }

  /** Empties the queue (the caller hands the deliveries back). */
  drain(): ClaimedDelivery[] {
    const out = this.#queued.splice(0);
    for (const delivery of out) bump(this.#held, delivery.endpoint.id, -1);
    return out;
  }
}

function bump(counts: Map<string, number>, id: string, by: number): void {
  const n = (counts.get(id) ?? 0) + by;
  if (n <= 0) counts.delete(id);
  else counts.set(id, n);
}
