/**
 * Retry schedules (`BackoffConfig`), jitter and `Retry-After`. Pure functions; randomness and the
 * clock are parameters, so a schedule is deterministic under test.
 *
 * Attempt numbering: attempt 1 is the first delivery. A schedule is normalised to `attemptDelays(config)`:
 * the wait (seconds) before each attempt, first included.
 * - `list`: `delays` as given — `delays[0]` is the wait before the first delivery (0 = immediately), as in
 *   the Standard Webhooks / Svix tables; the schedule has `delays.length` attempts.
 * - `exponential`: `maxAttempts` attempts in all, the first delivery included and immediate; the
 *   retries wait `initialDelay × factor^k` seconds (k = 0, 1, …), each capped at `maxDelay`. So
 *   `maxAttempts: 5` is one delivery and four retries (it counted retries before, making one more).
 *
 * Exports: `attemptDelays`, `totalAttempts`, `nextDelay`, `applyJitter`, `parseRetryAfter`,
 * `STANDARD_WEBHOOKS_SCHEDULE`, `SVIX_SCHEDULE`, `PETSTORE_SCHEDULE`, `DEFAULT_SCHEDULE`.
 */
import type { BackoffConfig, JitterConfig } from './contract.js';
import { WebhookError } from './errors.js';

/** Standard Webhooks' example: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const STANDARD_WEBHOOKS_SCHEDULE: BackoffConfig = {
  kind: 'list',
  delays: [0, 5, 300, 1800, 7200, 18000, 36000, 36000],
};

/** Svix's published schedule (the same table). */
export const SVIX_SCHEDULE: BackoffConfig = {
  kind: 'list',
  delays: [0, 5, 300, 1800, 7200, 18000, 36000, 36000],
};

/** The Petstore seed: 11 attempts — immediately, then 10 retries 1 s doubling to 512 s. */
export const PETSTORE_SCHEDULE: BackoffConfig = {
  kind: 'exponential',
  initialDelay: 1,
  factor: 2,
  maxDelay: 512,
  maxAttempts: 11,
};

export const DEFAULT_SCHEDULE: BackoffConfig = STANDARD_WEBHOOKS_SCHEDULE;

/** Retry-After clamp defaults: a receiver may slow us down, not stall or hammer the queue. */
export const DEFAULT_MIN_RETRY_AFTER_MS = 1000;
export const DEFAULT_MAX_RETRY_AFTER_MS = 3_600_000;

/** Upper bound on attempts so a bad config cannot make an unbounded schedule. */
const MAX_ATTEMPTS = 1000;

function invalid(message: string): WebhookError {
  return new WebhookError('invalid_config', `retry schedule: ${message}`);
}

function nonNegative(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalid(`${field} must be a non-negative number of seconds`);
  }
  return value;
}

/** Seconds before attempt 1, 2, … (validated; `invalid_config` on nonsense). */
export function attemptDelays(config: BackoffConfig): readonly number[] {
  if (config.kind === 'list') {
    if (!Array.isArray(config.delays) || config.delays.length === 0 || config.delays.length > MAX_ATTEMPTS) {
      throw invalid(`delays must list 1 to ${MAX_ATTEMPTS} delays`);
    }
    return config.delays.map((delay, i) => nonNegative(delay, `delays[${i}]`));
  }
  if (config.kind === 'exponential') {
    const initial = nonNegative(config.initialDelay, 'initialDelay');
    const max = nonNegative(config.maxDelay, 'maxDelay');
    if (typeof config.factor !== 'number' || !Number.isFinite(config.factor) || config.factor < 1) {
      throw invalid('factor must be a number ≥ 1');
    }
    if (
      !Number.isInteger(config.maxAttempts) ||
      config.maxAttempts < 1 ||
      config.maxAttempts > MAX_ATTEMPTS
    ) {
      throw invalid(
        `maxAttempts (attempts in all, the first included) must be an integer from 1 to ${MAX_ATTEMPTS}`,
      );
    }
    const delays = [0];
    let delay = initial;
    for (let i = 1; i < config.maxAttempts; i++) {
      delays.push(Math.min(delay, max));
      delay *= config.factor;
    }
    return delays;
  }
  throw invalid(`unknown kind ${JSON.stringify((config as { kind?: unknown }).kind)}`);
}

export function totalAttempts(config: BackoffConfig): number {
  return attemptDelays(config).length;
}

/** `delayMs` with jitter; `rng` returns [0, 1). Full: uniform in [0, d]; percent p: uniform in d·(1 ± p/100). */
export function applyJitter(delayMs: number, jitter: JitterConfig | undefined, rng: () => number): number {
  if (jitter === undefined || jitter.kind === 'none' || delayMs === 0) return delayMs;
  const r = Math.min(Math.max(rng(), 0), 1);
  if (jitter.kind === 'full') return Math.round(delayMs * r);
  if (jitter.kind === 'percent') {
    if (!Number.isFinite(jitter.percent) || jitter.percent < 0 || jitter.percent > 100) {
      throw invalid('jitter percent must be between 0 and 100');
    }
    return Math.max(0, Math.round(delayMs * (1 + ((2 * r - 1) * jitter.percent) / 100)));
  }
  throw invalid(`unknown jitter ${JSON.stringify((jitter as { kind?: unknown }).kind)}`);
}

export interface NextDelayOptions {
  /** The failed response's `Retry-After` (header text, or already-parsed milliseconds). */
  readonly retryAfter?: string | number | null | undefined;
  /** [0, 1) random source for jitter. Default `Math.random`. */
  readonly rng?: () => number;
  /** Clock for HTTP-date `Retry-After` values, ms. Default `Date.now`. */
  readonly now?: () => number;
  /** Clamp of an honoured `Retry-After`, ms. Defaults 1 s and 1 h. */
  readonly minRetryAfterMs?: number;
  readonly maxRetryAfterMs?: number;
}

/**
 * Milliseconds to wait before the attempt after `attempt` (1-based: the attempt that just failed), or
 * `null` when the schedule is exhausted. A valid `Retry-After` replaces the scheduled delay (clamped, no
 * jitter); exhaustion still follows the schedule.
 */
export function nextDelay(
  config: BackoffConfig,
  attempt: number,
  options: NextDelayOptions = {},
): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new WebhookError(
      'invalid_argument',
      'attempt must be an integer ≥ 1 (the attempt that just failed)',
    );
  }
  const delays = attemptDelays(config);
  const scheduled = delays[attempt];
  if (scheduled === undefined) return null;
  const now = options.now ?? Date.now;
  const retryAfter =
    typeof options.retryAfter === 'number'
      ? Number.isFinite(options.retryAfter) && options.retryAfter >= 0
        ? options.retryAfter
        : undefined
      : parseRetryAfter(options.retryAfter, now());
  if (retryAfter !== undefined) {
    const min = options.minRetryAfterMs ?? DEFAULT_MIN_RETRY_AFTER_MS;
    const max = options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
    return Math.min(Math.max(retryAfter, min), max);
  }
  return applyJitter(scheduled * 1000, config.jitter, options.rng ?? Math.random);
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const IMF_FIXDATE = /^([A-Z][a-z]{2}), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE = /^([A-Z][a-z]{5,8}), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^([A-Z][a-z]{2}) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

function utc(year: number, month: string, day: number, h: number, m: number, s: number): number | undefined {
  const monthIndex = MONTHS.indexOf(month);
  if (monthIndex < 0 || h > 23 || m > 59 || s > 60) return undefined;
  const time = Date.UTC(year, monthIndex, day, h, m, Math.min(s, 59));
  // Reject 31 Feb and friends rather than letting Date roll them over.
  return new Date(time).getUTCDate() === day ? time : undefined;
}

function parseHttpDate(text: string, nowMs: number): number | undefined {
  let match = IMF_FIXDATE.exec(text);
  if (match !== null) {
    if (!DAYS.includes(match[1] ?? '')) return undefined;
    return utc(
      Number(match[4]),
      match[3] ?? '',
      Number(match[2]),
      Number(match[5]),
      Number(match[6]),
      Number(match[7]),
    );
  }
  match = RFC850_DATE.exec(text);
  if (match !== null) {
    if (!LONG_DAYS.includes(match[1] ?? '')) return undefined;
    // Two-digit years: RFC 9110 says a year more than 50 years ahead is in the past century.
    const current = new Date(nowMs).getUTCFullYear();
    let year = Math.floor(current / 100) * 100 + Number(match[4]);
    if (year > current + 50) year -= 100;
    return utc(year, match[3] ?? '', Number(match[2]), Number(match[5]), Number(match[6]), Number(match[7]));
  }
  match = ASCTIME_DATE.exec(text);
  if (match !== null) {
    if (!DAYS.includes(match[1] ?? '')) return undefined;
    return utc(
      Number(match[7]),
      match[2] ?? '',
      Number(match[3]?.trim()),
      Number(match[4]),
      Number(match[5]),
      Number(match[6]),
    );
  }
  return undefined;
}

/**
 * `Retry-After` (RFC 9110 §10.2.3) → milliseconds from `nowMs`: delta-seconds (`120`) or an HTTP-date
 * (IMF-fixdate, RFC 850, asctime). A date in the past is 0. Anything else is `undefined` (ignore it).
 */
export function parseRetryAfter(
  value: string | null | undefined,
  nowMs: number = Date.now(),
): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  if (text.length > 40) return undefined;
  const date = parseHttpDate(text, nowMs);
  return date === undefined ? undefined : Math.max(0, date - nowMs);
}
