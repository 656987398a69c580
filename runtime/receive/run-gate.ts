/**
 * The receiver's shutdown: every handler run (inline and ack-fast) is tracked here, and its
 * `event.signal` is this gate's signal. `close({ timeoutMs })` waits for the runs in flight up to
 * the deadline, then aborts the signal: a plain run stops waiting for its handler and releases the
 * claim (the sender's retry, or the next process, runs the event again); a transactional run rolls
 * back once its handler throws. See docs/shutdown.md.
 */
import { type StopResult, settledWithin, shutdownReason } from '../shutdown.js';
import type { ReceiveResult } from './types.js';

export class RunGate {
  readonly #controller = new AbortController();
  readonly #running = new Set<Promise<void>>();
  #aborted: Promise<never> | undefined;
  #tally: { drained: number; released: number } | undefined;

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Rejects with the abort reason once the deadline passed (one shared promise, made on demand). */
  aborted(): Promise<never> {
    this.#aborted ??= new Promise<never>((_, reject) => {
      const signal = this.#controller.signal;
      if (signal.aborted) reject(signal.reason);
      else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    // Only the runs racing it observe the rejection.
    this.#aborted.catch(() => {});
    return this.#aborted;
  }

  /** Tracks one run; a run that ends `failed` after the abort counts as released. */
  track(run: Promise<ReceiveResult>): Promise<ReceiveResult> {
    const settled: Promise<void> = run.then(
      (result) => {
        const tally = this.#tally;
        if (tally !== undefined) {
          tally[this.signal.aborted && result.outcome === 'failed' ? 'released' : 'drained']++;
        }
      },
      () => {},
    );
    this.#running.add(settled);
    void settled.finally(() => this.#running.delete(settled));
    return run;
  }

  /**
   * Waits up to `timeoutMs` for the runs in flight, aborts the rest, then gives them `graceMs` to
   * release their claims (a store call, bounded by the store deadline).
   */
  async close(timeoutMs: number, graceMs: number, before?: () => Promise<void>): Promise<StopResult> {
    const tally = { drained: 0, released: 0 };
    this.#tally = tally;
    if (before !== undefined) await before();
    if (!(await settledWithin(this.#running, timeoutMs))) {
      this.#controller.abort(shutdownReason('The receiver'));
      await settledWithin(this.#running, graceMs);
    }
    return { ...tally };
  }
}
