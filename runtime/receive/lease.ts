/**
 * Keeps a claim's lease alive while its holder still needs it: while the handler runs, and after it
 * while the completion is retried. Renewed every leaseMs / 3 (owner only), so a slow handler is not
 * overlapped by a retry; a crashed process stops renewing and its lease expires `leaseMs` later.
 */
import type { DedupeStore } from './dedupe-types.js';

export interface Renewal {
  stop(): void;
}

export interface RenewalOptions {
  readonly leaseMs: number;
  readonly now: () => number;
  /** The claim was lost (expired and taken over, or it was completed by someone else). */
  readonly onLost: () => void;
  /** A renewal failed (the store is unavailable); the next one tries again. */
  readonly onError: (error: unknown) => void;
}

const noRenewal: Renewal = { stop: () => {} };

export function renewLease(store: DedupeStore, key: string, owner: string, options: RenewalOptions): Renewal {
  const extend = store.extend?.bind(store);
  if (extend === undefined) return noRenewal;
  const { leaseMs, now } = options;
  let busy = false;
  // A renewal still in flight when the holder stops (e.g. the done record just landed, so the
  // claim is no longer `inflight`) must not report the claim lost.
  let stopped = false;
  const timer = setInterval(
    () => {
      if (busy) return;
      busy = true;
      extend(key, { leaseMs, now: now(), token: owner })
        .then((held) => {
          if (held || stopped) return;
          clearInterval(timer);
          options.onLost();
        })
        .catch((error: unknown) => {
          if (!stopped) options.onError(error);
        })
        .finally(() => {
          busy = false;
        });
    },
    Math.max(10, Math.floor(leaseMs / 3)),
  );
  // Never keep a process alive just to renew a lease.
  (timer as { unref?: () => void }).unref?.();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
