/**
 * The ack-fast worker loop: keeps up to `concurrency` queued events running, taking due rows as soon
 * as a slot is free (a slow handler holds one slot, never the others), and renews each row's lease
 * while its handler runs, so no other worker takes it again mid-run. Rows are leased, so several
 * workers (processes) can share one queue.
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

interface Tally {
  processed: number;
  failed: number;
}

export class QueueWorker {
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Events the background loop is running. */
  private readonly active = new Set<Promise<void>>();
  /** The loop is waiting for a free slot: a finished event wakes it. */
  private saturated = false;
  /** wake() came while the loop was not asleep. */
  private woken = false;
  private readonly concurrency: number;
  private readonly batchSize: number;

  private readonly deps: WorkerDeps;
  constructor(deps: WorkerDeps) {
    this.deps = deps;
    this.concurrency = Math.max(1, Math.floor(deps.options.concurrency ?? 1));
    this.batchSize = Math.max(1, Math.floor(deps.options.batchSize ?? 10));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** A new event was queued by this process: poll now instead of waiting for the interval. */
  wake(): void {
    if (this.wakeUp !== undefined) this.wakeUp();
    // Not asleep (taking rows right now): the next sleep is skipped, so the event is not missed.
    else this.woken = true;
  }

  /** Stop taking events (the loop has ended); those running go on. */
  async halt(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    this.loop = undefined;
  }

  /** Stop taking events and wait for those running. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    this.loop = undefined;
    await Promise.allSettled([...this.active]);
  }

  /** Process until nothing is due and nothing runs; events start as slots free up. */
  async drain(): Promise<DrainResult> {
    const tally: Tally = { processed: 0, failed: 0 };
    const mine = new Set<Promise<void>>();
    for (;;) {
      const taken = await this.fill(mine, tally);
      if (taken === 0 && mine.size === 0) return { ...tally };
      if (taken === 0 || mine.size >= this.concurrency) await Promise.race(mine);
    }
  }

  private async run(): Promise<void> {
    const pollMs = this.deps.options.pollMs ?? 1000;
    while (this.running) {
      let more = false;
      try {
        const limit = this.limit(this.active);
        more = limit > 0 && (await this.fill(this.active)) === limit;
      } catch (error) {
        this.deps.onLoopError(error);
      }
      if (!this.running) break;
      this.saturated = this.active.size >= this.concurrency;
      // A full take: more may be due, take again while slots are free.
      if (more && !this.saturated) continue;
      await this.sleep(pollMs);
      this.saturated = false;
    }
  }

  private limit(set: Set<Promise<void>>): number {
    return Math.min(this.concurrency - set.size, this.batchSize);
  }

  /** Takes due rows for the free slots of `set` and starts them; returns how many. */
  private async fill(set: Set<Promise<void>>, tally?: Tally): Promise<number> {
    const limit = this.limit(set);
    if (limit <= 0) return 0;
    const { queue, now, leaseMs } = this.deps;
    const entries = await queue.dequeue({ now: now(), leaseMs, limit });
    for (const entry of entries) this.launch(entry, set, tally);
    return entries.length;
  }

  private launch(entry: QueuedEvent, set: Set<Promise<void>>, tally: Tally | undefined): void {
    const stopRenewal = this.keepLeased(entry);
    const task: Promise<void> = this.deps
      .process(entry)
      .then(
        (outcome) => {
          if (tally !== undefined) tally[outcome === 'done' ? 'processed' : 'failed']++;
        },
        (error: unknown) => {
          // Settling the row failed (queue unavailable): its lease expires and it is taken again.
          if (tally !== undefined) tally.failed++;
          this.deps.onLoopError(error);
        },
      )
      .finally(() => {
        stopRenewal();
        set.delete(task);
        if (this.saturated) this.wake();
      });
    set.add(task);
  }

  /** Renews the row's lease every leaseMs / 3 while its handler runs. */
  private keepLeased(entry: QueuedEvent): () => void {
    const { queue, now, leaseMs } = this.deps;
    const extend = queue.extend?.bind(queue);
    if (extend === undefined) return () => {};
    let busy = false;
    const timer = setInterval(
      () => {
        if (busy) return;
        busy = true;
        extend(entry.seq, { now: now(), leaseMs, attempts: entry.attempts })
          .then((held) => {
            // Taken again (this worker stalled past its lease): the claim guard still protects the event.
            if (!held) clearInterval(timer);
          })
          .catch((error: unknown) => this.deps.onLoopError(error))
          .finally(() => {
            busy = false;
          });
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    (timer as { unref?: () => void }).unref?.();
    return () => clearInterval(timer);
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
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
}
