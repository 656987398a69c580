/**
 * The `done` record of an event whose handler succeeded, written in the background when writing it
 * inline failed. Without it the claim only expired: a duplicate after the lease ran the handler a
 * second time. So the claim is kept alive (its lease renewed) and `complete` retried with backoff
 * until it lands; a duplicate meanwhile is answered 409 in progress, never run. The sender already
 * has its 2xx: the answer does not wait on a store that is slow to recover.
 *
 * A completion still not written one lease after the handler finished, or whose claim was lost, is
 * reported once through `onError` as `completion_failed`: from then on a duplicate may run the handler
 * again (the lease can expire while the store is down). Retries go on until the TTL has passed.
 */
import { WebhookError } from '../errors.js';
import type { DedupeStore, Ids } from './dedupe-types.js';
import type { Renewal } from './lease.js';
import type { ErrorContext } from './types.js';

export interface CompletionDeps {
  /** Undefined without dedupe (`dedupe: false`): there is nothing to complete. */
  readonly store: DedupeStore | undefined;
  readonly now: () => number;
  readonly leaseMs: number;
  readonly ttlMs: number;
  readonly report: (error: WebhookError, context: ErrorContext) => void;
}

interface Pending {
  /** One more try now (stop() of the receiver); resolves when it settled. */
  readonly attempt: () => Promise<void>;
  readonly cancel: () => void;
}

/** 100 ms, 200 ms, … capped at 5 s. */
const delay = (attempt: number): number => Math.min(5000, 100 * 2 ** Math.min(attempt, 10));

export class Completions {
  private readonly pending = new Set<Pending>();

  private readonly deps: CompletionDeps;

  constructor(deps: CompletionDeps) {
    this.deps = deps;
  }

  /** Completions not written yet. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Retry `complete(key)` in the background until it lands. `renewal` keeps the claim meanwhile
   * and is stopped once the record is written; `lost()` says whether the renewal lost the claim.
   */
  retry(key: string, ids: Ids, renewal: Renewal, firstError: unknown): Completion {
    const { store, now, leaseMs, ttlMs } = this.deps;
    if (store === undefined) return { lost: () => {} };
    const since = now();
    let attempts = 1;
    let lastError = firstError;
    let reported = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;

    const finish = (): void => {
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      renewal.stop();
      this.pending.delete(entry);
    };
    const reportOnce = (why: string): void => {
      if (reported) return;
      reported = true;
      this.deps.report(
        new WebhookError(
          'completion_failed',
          `The handler of "${ids.type}" succeeded but its done record is not written (${why}); a duplicate may run it again`,
          { cause: lastError, details: { attempts } },
        ),
        { outcome: 'processed', ...ids },
      );
    };
    const attempt = async (): Promise<void> => {
      if (settled) return;
      try {
        await store.complete(key, { ttlMs, now: now() });
        finish();
        return;
      } catch (error) {
        attempts++;
        lastError = error;
      }
      if (now() - since >= ttlMs) {
        reportOnce('gave up after the TTL');
        finish();
      } else if (now() - since >= leaseMs) reportOnce(`still failing after ${attempts} attempts`);
    };
    const schedule = (): void => {
      timer = setTimeout(
        () => {
          timer = undefined;
          void attempt().then(() => {
            if (!settled) schedule();
          });
        },
        delay(attempts - 1),
      );
      // Never keep a process alive just for this; receiver.stop() makes one last attempt.
      (timer as { unref?: () => void }).unref?.();
    };
    const entry: Pending = {
      attempt,
      cancel: () => {
        if (!settled) finish();
      },
    };
    this.pending.add(entry);
    schedule();
    return {
      lost: () => {
        if (!settled) reportOnce('the claim was lost');
      },
    };
  }

  /** One last attempt at every pending completion, then no more retries (receiver.stop()). */
  async stop(): Promise<void> {
    const entries = [...this.pending];
    await Promise.all(entries.map((entry) => entry.attempt()));
    for (const entry of entries) entry.cancel();
  }
}

export interface Completion {
  /** The lease renewal lost the claim: report it (once). */
  lost(): void;
}
