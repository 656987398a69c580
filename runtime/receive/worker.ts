/**
 * The ack-fast worker loop: dequeue due events (leased, so several workers can share one queue),
 * process each with the receiver's claim guard, ack, retry with backoff, or dead-letter.
 */
import type { EventQueue, QueuedEvent } from '../stores/types.js';
import type { DrainResult, WorkerOptions } from './types.js';

export type QueuedOutcome = 'done' | 'failed';

export interface WorkerDeps {
  readonly queue: EventQueue;
  readonly now: () => number;
  readonly leaseMs: number;
  /** Processes one entry and settles it in the queue (ack / retry / fail). */
  readonly process: (entry: QueuedEvent) => Promise<QueuedOutcome>;
  /** Errors of the loop itself (queue unavailable). */
  readonly onLoopError: (error: unknown) => void;
  readonly options: WorkerOptions;
}

export function defaultBackoff(attempt: number): number {
  return Math.min(3_600_000, 1000 * 2 ** Math.max(0, attempt - 1));
}

export class QueueWorker {
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  private readonly deps: WorkerDeps;
  constructor(deps: WorkerDeps) {
    this.deps = deps;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** A new event was queued by this process: poll now instead of waiting for the interval. */
  wake(): void {
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    this.loop = undefined;
  }

  /** Process until nothing is due. Bounded: each round takes at least one row or ends. */
  async drain(): Promise<DrainResult> {
    let processed = 0;
    let failed = 0;
    for (;;) {
      const { taken, done, errors } = await this.tick();
      processed += done;
      failed += errors;
      if (taken === 0) return { processed, failed };
    }
  }

  private async run(): Promise<void> {
    const pollMs = this.deps.options.pollMs ?? 1000;
    while (this.running) {
      let taken = 0;
      try {
        taken = (await this.tick()).taken;
      } catch (error) {
        this.deps.onLoopError(error);
      }
      if (taken === 0 && this.running) await this.sleep(pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        if (this.timer !== undefined) clearTimeout(this.timer);
        this.timer = undefined;
        this.wakeUp = undefined;
        resolve();
      };
      this.wakeUp = done;
      this.timer = setTimeout(done, ms);
    });
  }

  private async tick(): Promise<{ taken: number; done: number; errors: number }> {
    const { queue, now, leaseMs, options } = this.deps;
    const entries = await queue.dequeue({ now: now(), leaseMs, limit: options.batchSize ?? 10 });
    let done = 0;
    let errors = 0;
    let next = 0;
    const lane = async (): Promise<void> => {
      for (let entry = entries[next++]; entry !== undefined; entry = entries[next++]) {
        if ((await this.deps.process(entry)) === 'done') done++;
        else errors++;
      }
    };
    const lanes = Math.max(1, Math.min(options.concurrency ?? 1, entries.length));
    await Promise.all(Array.from({ length: lanes }, lane));
    return { taken: entries.length, done, errors };
  }
}
