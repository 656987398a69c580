/**
 * What the bounded stops share (`worker.stop`, `receiver.close`, `retention.stop`): the options, the
 * result, the default deadline and the wait that ends at it. See docs/shutdown.md.
 */
import { WebhookError } from './errors.js';
import { checkKnownOptions, type KnownKeys } from './known-options.js';

/** Default deadline of a stop: under the 30 s most process managers grant after SIGTERM. */
export const DEFAULT_STOP_TIMEOUT_MS = 10_000;

export interface StopOptions {
  /**
   * How long in-flight work may run on before it is aborted and handed back (its lease or claim
   * released, so another process retries it). Default 10 000 ms; 0 aborts at once.
   */
  readonly timeoutMs?: number;
}

export interface StopResult {
  /** In-flight items that finished on their own, verdict recorded, before the deadline. */
  readonly drained: number;
  /** Items handed back untried or cut off at the deadline: their lease/claim released for a retry. */
  readonly released: number;
}

const STOP_KEYS = { timeoutMs: true } as const satisfies KnownKeys<StopOptions>;

/** The deadline in ms; `invalid_config` unless a finite number ≥ 0 (or for an unknown option key). */
export function stopTimeout(name: string, options: StopOptions | undefined): number {
  checkKnownOptions(name, options, STOP_KEYS);
  const ms = options?.timeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    throw new WebhookError('invalid_config', `${name}: timeoutMs must be a number of ms ≥ 0, got ${ms}`, {
      details: { option: 'timeoutMs', expected: 'a finite number ≥ 0' },
    });
  }
  return ms;
}

/** Waits for `work` to settle or `ms` to pass; true when it settled in time. Never rejects. */
export async function settledWithin(work: Iterable<Promise<unknown>>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, ms, false);
  });
  try {
    return await Promise.race([Promise.allSettled([...work]).then(() => true as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The reason handed to `AbortController.abort` at a stop's deadline. */
export function shutdownReason(what: string): Error {
  const error = new Error(`${what} is shutting down: the stop deadline passed`);
  error.name = 'AbortError';
  return error;
}
