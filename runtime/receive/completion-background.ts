/**
 * Failed completions retried in the background (the Node parts): the sender already has its 2xx,
 * so the answer does not wait on a store that is slow to recover. The claim is kept alive (its
 * lease renewed) and `complete` retried with backoff until it lands; a duplicate meanwhile is
 * answered 409 in progress, never run. A completion still not written one lease after the handler
 * finished, or whose claim was lost, is reported once as `completion_failed` (the lease can expire
 * while the store is down); retries go on until the TTL has passed.
 */
import { type CompletionMode, completionReport } from './completion.js';

interface Pending {
  /** One more try now (stop() of the receiver); resolves when it settled. */
  readonly attempt: () => Promise<void>;
  readonly cancel: () => void;
}

/** 100 ms, 200 ms, … capped at 5 s. */
const delay = (attempt: number): number => Math.min(5000, 100 * 2 ** Math.min(attempt, 10));

export const backgroundCompletions: CompletionMode = (deps) => {
  const pending = new Set<Pending>();
  return {
    retry(key, ids, renewal, firstError) {
      const { store, now, leaseMs, ttlMs } = deps;
      if (store === undefined) return { lost: () => {} };
      const since = now();
      let attempts = 1;
      let lastError = firstError;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let settled = false;
      const reportOnce = completionReport(deps, ids, () => ({ attempts, lastError }));

      const finish = (): void => {
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        renewal.stop();
        pending.delete(entry);
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
      pending.add(entry);
      schedule();
      return {
        lost: () => {
          if (!settled) reportOnce('the claim was lost');
        },
      };
    },

    /** One last attempt at every pending completion, then no more retries (receiver.stop()). */
    async stop() {
      const entries = [...pending];
      await Promise.all(entries.map((entry) => entry.attempt()));
      for (const entry of entries) entry.cancel();
    },
  };
};
