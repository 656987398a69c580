/**
 * The completion decision, one for both outboxes: how an attempt's outcome becomes a resolution
 * (delivered, retry on the schedule, dead), how a resolution becomes the delivery's new state, the
 * fence a completion must pass (the claim's owner and attempt number), and when the endpoint is
 * disabled. The databases only write what is decided here.
 */
import { nextDelay } from '../../backoff.js';
import type { BackoffConfig } from '../../contract.js';
import type {
  AttemptResolution,
  ClaimedDelivery,
  CompleteInput,
  CompleteResult,
  DisabledReason,
} from '../outbox.js';
import type { PerformedAttempt } from '../perform-attempt.js';

export interface RetryClamp {
  readonly rng: () => number;
  readonly minRetryAfterMs?: number;
  readonly maxRetryAfterMs?: number;
}

/** The worker's verdict on a performed attempt. */
export function resolveAttempt(
  delivery: Pick<ClaimedDelivery, 'attempt'>,
  attempt: PerformedAttempt,
  retry: BackoffConfig,
  clamp: RetryClamp,
): AttemptResolution {
  const { outcome } = attempt.classification;
  if (outcome === 'success') return { kind: 'succeeded' };
  const error = attempt.error ?? attempt.classification.reason;
  if (outcome === 'fail') return { kind: 'dead', error };
  // `retry`, and `gone` too: the endpoint is disabled, and re-enabling it resumes the schedule.
  const delay = nextDelay(retry, delivery.attempt, {
    retryAfter: attempt.responseHeaders['retry-after'],
    rng: clamp.rng,
    now: () => attempt.startedAt,
    ...(clamp.minRetryAfterMs !== undefined ? { minRetryAfterMs: clamp.minRetryAfterMs } : {}),
    ...(clamp.maxRetryAfterMs !== undefined ? { maxRetryAfterMs: clamp.maxRetryAfterMs } : {}),
  });
  if (delay === null) return { kind: 'dead', error };
  return { kind: 'retry', nextAttemptAt: attempt.startedAt + delay, error };
}

/** The delivery's state after a completion; written only where the fence holds. */
export interface CompletionPlan {
  readonly status: 'pending' | 'succeeded' | 'dead';
  readonly nextAttemptAt: number;
  readonly lastError: string | null;
  /** Set when the delivery is finished (succeeded or dead). */
  readonly finishedAt: number | null;
  /** The attempt failed: the endpoint's consecutive-failure counter goes up (else it resets). */
  readonly failed: boolean;
}

export function planCompletion(input: CompleteInput): CompletionPlan {
  const { resolution, now } = input;
  const retry = resolution.kind === 'retry';
  return {
    status: retry ? 'pending' : resolution.kind,
    nextAttemptAt: retry ? resolution.nextAttemptAt : now,
    lastError: resolution.kind === 'succeeded' ? null : resolution.error,
    finishedAt: retry ? null : now,
    failed: input.attempt.outcome !== 'succeeded',
  };
}

/**
 * The fence of a completion or release: the row must still be `delivering` under this claim's owner
 * and attempt number, so a worker whose lease expired (and was re-claimed) writes nothing.
 */
export interface Fence {
  readonly id: string;
  readonly owner: string;
  readonly attempt: number;
}

export const fenceOf = (delivery: ClaimedDelivery): Fence => ({
  id: delivery.id,
  owner: delivery.leaseOwner,
  attempt: delivery.attempt,
});

/** The endpoint's failure streak after a failed completion: its length and when it began. */
export interface FailureStreak {
  readonly failures: number;
  /** The first failed attempt of the streak (ms); unset on rows from before it was recorded. */
  readonly since: number | undefined;
}

/**
 * Why a failed, applied completion disables the endpoint, if it does: a 410, or a streak both long
 * enough (`disableAfterFailures`) and old enough (`disableAfterFailingForMs`). The count alone would
 * switch off a busy endpoint within a second of an outage.
 */
export function disableReason(input: CompleteInput, streak: FailureStreak): DisabledReason | undefined {
  if (input.disable) return input.disable;
  const threshold = input.disableAfterFailures;
  if (threshold === undefined || threshold <= 0 || streak.failures < threshold) return undefined;
  const forMs = input.disableAfterFailingForMs ?? 0;
  if (forMs > 0 && (streak.since === undefined || input.now - streak.since < forMs)) return undefined;
  return 'consecutive_failures';
}

export interface PendingCompletion {
  readonly input: CompleteInput;
  readonly resolve: (result: CompleteResult) => void;
  readonly reject: (error: unknown) => void;
}

/** How long a completion may wait for others to share its write, and how many one write takes. */
export interface BatchWindow {
  /** 0: the next turn of the event loop. */
  readonly lingerMs: number;
  /** The most one write takes; a batch this full is written at once. */
  readonly maxBatch: number;
  /**
   * A batch this full is written without waiting out the linger (default `maxBatch`). The linger
   * is for a trickle; under load, verdicts held for it would bound throughput (the worker counts
   * unwritten verdicts against its read-ahead).
   */
  readonly flushAt?: number;
}

/**
 * Completions that arrive while none is being written share the next write (one commit for many),
 * so throughput is not bound by commit latency; with a `lingerMs`, a lone completion also waits that
 * long for company (the worker has already freed its connection slot, so only the verdict waits).
 * `flush` settles every item it is given; if it throws, the items it left unsettled fail with that
 * error (they stay leased and are retried after the lease).
 */
export function completionBatcher(
  flush: (items: PendingCompletion[]) => void | Promise<void>,
  window: BatchWindow = { lingerMs: 0, maxBatch: Number.POSITIVE_INFINITY },
): (input: CompleteInput) => Promise<CompleteResult> {
  let pending: PendingCompletion[] = [];
  let flushing = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flushAt = Math.min(window.flushAt ?? window.maxBatch, window.maxBatch);
  const run = async (): Promise<void> => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (flushing || pending.length === 0) return;
    flushing = true;
    const items = pending.length > window.maxBatch ? pending.splice(0, window.maxBatch) : pending;
    if (items === pending) pending = [];
    try {
      await flush(items);
    } catch (error) {
      for (const item of items) item.reject(error);
    } finally {
      flushing = false;
    }
    // Those that arrived meanwhile have waited a write already: no linger for them.
    void run();
  };
  const fire = () => {
    timer = undefined;
    void run();
  };
  return (input) =>
    new Promise<CompleteResult>((resolve, reject) => {
      pending.push({ input, resolve, reject });
      if (flushing) return;
      if (pending.length >= flushAt) void run();
      else if (pending.length === 1) {
        if (window.lingerMs > 0) timer = setTimeout(fire, window.lingerMs);
        else setImmediate(fire);
      }
    });
}
