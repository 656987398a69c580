/**
 * The `done` record of an event whose handler succeeded, when writing it failed: how it is retried
 * is a receiver part (`ReceiverParts.completions`). Without a retry the claim only expired, and a
 * duplicate after the lease ran the handler a second time.
 *
 * - `backgroundCompletions` (`completion-background.ts`, the Node parts): the sender gets its 2xx at
 *   once; the claim is kept alive and `complete` retried with backoff until it lands.
 * - `inlineCompletions` (here, the Web parts and the default): a few retries before answering, within
 *   about one store deadline — on workerd and other edge runtimes the timers of a request that was
 *   answered are not reliably run.
 *
 * Either reports a completion it gave up on (or whose claim was lost) once through `onError` as
 * `completion_failed`: from then on a duplicate may run the handler again.
 */
import { WebhookError } from '../errors.js';
import type { DedupeStore, Ids } from './dedupe-types.js';
import type { Renewal } from './lease.js';
import type { ErrorContext } from './types.js';

/** The part of the receiver's run context (run-context.ts) that completions are built from. */
export interface CompletionDeps {
  /** Undefined without dedupe (`dedupe: false`): there is nothing to complete. */
  readonly store: DedupeStore | undefined;
  readonly now: () => number;
  readonly leaseMs: number;
  readonly ttlMs: number;
  /** The store deadline (ms; 0: none), which bounds the inline retries. */
  readonly storeTimeoutMs: number;
  readonly report: (error: WebhookError, context: ErrorContext) => void;
}

export interface Completion {
  /** The lease renewal lost the claim: report it (once). */
  lost(): void;
  /** What the run waits for before answering: the inline retries (undefined: nothing). */
  readonly settled?: Promise<void>;
}

export interface Completions {
  /**
   * `complete(key)` failed (`firstError`) after the handler succeeded. `renewal` keeps the claim
   * meanwhile and is stopped once the record is written or given up on.
   */
  retry(key: string, ids: Ids, renewal: Renewal, firstError: unknown): Completion;
  /** `receiver.stop()`: the last attempts, then no more retries. */
  stop(): Promise<void>;
}

/** A receiver part: how failed completions are retried. */
export type CompletionMode = (deps: CompletionDeps) => Completions;

/** The `completion_failed` report of one event, made once (the returned function). */
export function completionReport(
  deps: CompletionDeps,
  ids: Ids,
  state: () => { readonly attempts: number; readonly lastError: unknown },
): (why: string) => void {
  let reported = false;
  return (why) => {
    if (reported) return;
    reported = true;
    const { attempts, lastError } = state();
    deps.report(
      new WebhookError(
        'completion_failed',
        `The handler of "${ids.type}" succeeded but its done record is not written (${why}); a duplicate may run it again`,
        { cause: lastError, details: { attempts } },
      ),
      { outcome: 'processed', ...ids },
    );
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Up to three more attempts before the answer (50, 100, 200 ms apart), none started later than one
 * store deadline (`storeTimeoutMs`, 1.5 s by default) after the first failure; then
 * `completion_failed`, the renewal stopped (the claim expires one lease later), and the 2xx.
 */
export const inlineCompletions: CompletionMode = (deps) => ({
  retry(key, ids, renewal, firstError) {
    // Called by the run paths with a store only (no dedupe, no done record).
    const { now, ttlMs, storeTimeoutMs } = deps;
    const store = deps.store as DedupeStore;
    let attempts = 1;
    let lastError = firstError;
    const report = completionReport(deps, ids, () => ({ attempts, lastError }));
    const settled = (async () => {
      const since = now();
      const late = () => storeTimeoutMs > 0 && now() - since >= storeTimeoutMs;
      for (let wait = 50; wait <= 200 && !late(); wait *= 2) {
        await sleep(wait);
        try {
          await store.complete(key, { ttlMs, now: now() });
          renewal.stop();
          return;
        } catch (error) {
          attempts++;
          lastError = error;
        }
      }
      renewal.stop();
      report(`gave up after ${attempts} attempts`);
    })();
    return { lost: () => report('the claim was lost'), settled };
  },
  stop: async () => {},
});
