/**
 * The retention schedule: every `intervalMs`, prune the outbox's finished history and delete the
 * store's expired dedupe keys, in the bounded batches those functions already run (so a prune never
 * holds a worker or a receiver up for more than one batch). Runs never overlap; a failure is logged
 * and the next run tries again; `stop({ timeoutMs })` aborts the run in progress between two batches
 * and resolves once its batch has ended, or at the deadline (default 10 s; a batch is one bounded
 * DELETE, which its database rolls back whole if the process then exits).
 */
import type { PruneOutboxOptions, PruneOutboxResult } from './deliver/outbox-prune.js';
import { WebhookError } from './errors.js';
import { checkKnownOptions, type KnownKeys } from './known-options.js';
import { type StopOptions, settledWithin, stopTimeout } from './shutdown.js';
import type { IdempotencyStore } from './stores/types.js';

/** What the schedule calls on an outbox: `outbox.prune`, or e.g. `(o) => pruneSqliteOutbox(db, o)`. */
export interface PrunableOutbox {
  prune(options: Omit<PruneOutboxOptions, 'tables'>): Promise<PruneOutboxResult>;
}

/** The pino / console shape: an object of fields, then a message. */
export interface RetentionLogger {
  info?(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface RetentionOptions {
  readonly outbox?: PrunableOutbox;
  /** Its expired keys are deleted on the same schedule (a no-op for Redis, which expires them itself). */
  readonly store?: Pick<IdempotencyStore<unknown>, 'cleanup'>;
  /** Milliseconds attempts are kept after their delivery finished. */
  readonly keepAttempts: number;
  /** Milliseconds messages are kept after their last delivery finished. */
  readonly keepMessages: number;
  /** Between the end of one run and the start of the next. Default one hour. */
  readonly intervalMs?: number;
  /** First run after this many ms. Default: `intervalMs`. */
  readonly firstRunMs?: number;
  /** Rows per batch for both. Defaults: the outbox's and store's own. */
  readonly batchSize?: number;
  /** Pause between batches, ms. Default 0 (one event-loop turn). */
  readonly pauseMs?: number;
  readonly logger?: RetentionLogger;
  /** Injected clock. Default `Date.now`. */
  readonly now?: () => number;
}

export interface RetentionRun {
  readonly outbox?: PruneOutboxResult;
  /** Dedupe keys deleted. */
  readonly keys?: number;
  readonly durationMs: number;
}

export interface Retention {
  /** Runs once now (after a run in progress, if any); resolves with what it removed. */
  runNow(): Promise<RetentionRun>;
  /**
   * Cancels the schedule; aborts a run in progress between batches; resolves when its batch has
   * ended or `timeoutMs` (default 10 s) passed, whichever is first.
   */
  stop(options?: StopOptions): Promise<RetentionStopResult>;
}

export interface RetentionStopResult {
  /** False when a batch was still running at the deadline (its transaction is the database's). */
  readonly finished: boolean;
}

const HOUR = 60 * 60 * 1000;

const RETENTION_KEYS = {
  outbox: true,
  store: true,
  keepAttempts: true,
  keepMessages: true,
  intervalMs: true,
  firstRunMs: true,
  batchSize: true,
  pauseMs: true,
  logger: true,
  now: true,
} as const satisfies KnownKeys<RetentionOptions>;

export function startRetention(options: RetentionOptions): Retention {
  checkKnownOptions('startRetention', options, RETENTION_KEYS);
  const intervalMs = options.intervalMs ?? HOUR;
  for (const [name, value] of [
    ['keepAttempts', options.keepAttempts],
    ['keepMessages', options.keepMessages],
    ['intervalMs', intervalMs],
  ] as const) {
    if (!Number.isFinite(value) || value < 0) {
      throw new WebhookError(
        'invalid_config',
        `startRetention: ${name} must be a number of ms ≥ 0, got ${value}`,
      );
    }
  }
  if (options.outbox === undefined && options.store === undefined) {
    throw new WebhookError('invalid_config', 'startRetention: give an outbox, a store, or both');
  }
  const clock = options.now ?? Date.now;
  const logger = options.logger ?? console;
  const controller = new AbortController();
  let running: Promise<RetentionRun> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  const once = async (): Promise<RetentionRun> => {
    const started = clock();
    const shared = {
      now: started,
      signal: controller.signal,
      ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
      ...(options.pauseMs === undefined ? {} : { pauseMs: options.pauseMs }),
    };
    let outbox: PruneOutboxResult | undefined;
    let keys: number | undefined;
    // One failing does not keep the other from running.
    if (options.outbox !== undefined) {
      try {
        outbox = await options.outbox.prune({
          ...shared,
          keepAttemptsMs: options.keepAttempts,
          keepMessagesMs: options.keepMessages,
        });
      } catch (error) {
        logger.error({ err: error, part: 'outbox' }, 'retention: pruning the outbox failed');
      }
    }
    if (options.store !== undefined && !controller.signal.aborted) {
      try {
        keys = await options.store.cleanup(started, shared);
      } catch (error) {
        logger.error({ err: error, part: 'store' }, 'retention: deleting expired dedupe keys failed');
      }
    }
    const run = {
      ...(outbox === undefined ? {} : { outbox }),
      ...(keys === undefined ? {} : { keys }),
      durationMs: clock() - started,
    };
    logger.info?.({ ...run }, 'retention: run finished');
    return run;
  };

  const run = (): Promise<RetentionRun> => {
    const previous = running ?? Promise.resolve(undefined);
    const next = previous.then(once, once);
    running = next;
    void next.finally(() => {
      if (running === next) running = undefined;
    });
    return next;
  };

  const schedule = (ms: number): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      // `once` logs its own failures and never rejects.
      void run().then(() => schedule(intervalMs));
    }, ms);
    // The schedule alone keeps no process alive.
    (timer as { unref?: () => void }).unref?.();
  };
  schedule(options.firstRunMs ?? intervalMs);

  return {
    runNow: run,
    async stop(stopOptions?: StopOptions) {
      const timeoutMs = stopTimeout('retention.stop', stopOptions);
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      controller.abort();
      return { finished: running === undefined || (await settledWithin([running], timeoutMs)) };
    },
  };
}
