/**
 * Replay-window helpers shared by Standard Webhooks, the simple HMAC scheme and the presets that sign a
 * timestamp (Stripe, Slack, Zoom, Paddle, …). No `node:*` imports.
 *
 * Exports:
 * - `DEFAULT_TOLERANCE_SECONDS` (300)
 * - `Tolerance` — seconds both directions (`300`), or split (`{ past: 300, future: 300 }`) so a
 *   receiver can match a provider library exactly (stripe-node and Bolt accept any future timestamp:
 *   `{ past: 300, future: Infinity }`).
 * - `parseUnixSeconds(text, headerName)` — strict: ASCII digits only, no sign/space/exponent/fraction,
 *   no leading zeros, at most 15 digits; else `WebhookError('malformed_header')`.
 * - `checkTimestamp(seconds, { tolerance, now }, headerName)` — throws `timestamp_too_old` when
 *   `now - seconds > past` and `timestamp_too_new` when `seconds - now > future` (exactly the bound
 *   passes).
 * - `checkTolerance(tolerance)` — `invalid_config` unless a finite number ≥ 0 or `{ past, future }`
 *   (each ≥ 0, `Infinity` allowed); returns it with the default applied (for scheme constructors).
 * - `toleranceWindow(tolerance)` — the validated `{ past, future }` seconds.
 * - `checkTimestampMs(ms, { tolerance, now }, name)` — the same check for a millisecond timestamp
 *   (HubSpot's header, Linear's `webhookTimestamp`), compared in milliseconds as their libraries do.
 */
import { WebhookError } from './errors.js';

export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Seconds a timestamp may lie in the past and in the future of the receiver's clock. */
export interface ToleranceWindow {
  readonly past: number;
  readonly future: number;
}

/** One number for both directions, or the two sides apart. */
export type Tolerance = number | ToleranceWindow;

export interface TimestampWindow {
  /** Seconds, both directions, or `{ past, future }`. Default 300. */
  readonly tolerance?: Tolerance | undefined;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

export function parseUnixSeconds(text: string | undefined, headerName: string): number {
  if (text === undefined) {
    throw new WebhookError('missing_header', `Missing ${headerName} header`, {
      details: { header: headerName.toLowerCase() },
    });
  }
  const length = typeof text === 'string' ? text.length : 0;
  // No leading zeros (one spelling per instant), at most 15 digits (exact in a double).
  let valid = length > 0 && length <= 15 && !(length > 1 && text.charCodeAt(0) === 0x30);
  let value = 0;
  for (let i = 0; valid && i < length; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) valid = false;
    value = value * 10 + digit;
  }
  if (!valid) {
    throw new WebhookError('malformed_header', `${headerName} must be Unix seconds (digits only)`, {
      details: { header: headerName.toLowerCase() },
    });
  }
  return value;
}

export function checkTimestamp(seconds: number, window: TimestampWindow, headerName: string): void {
  const { past, future } = toleranceWindow(window.tolerance);
  const nowMs = (window.now ?? Date.now)();
  if (!Number.isFinite(nowMs)) throw new WebhookError('invalid_config', 'now() must return milliseconds');
  const nowSeconds = Math.floor(nowMs / 1000);
  if (nowSeconds - seconds > past) {
    throw new WebhookError('timestamp_too_old', `${headerName} is more than ${past}s in the past`, {
      details: { header: headerName.toLowerCase(), timestamp: seconds, now: nowSeconds, tolerance: past },
    });
  }
  if (seconds - nowSeconds > future) {
    throw new WebhookError('timestamp_too_new', `${headerName} is more than ${future}s in the future`, {
      details: { header: headerName.toLowerCase(), timestamp: seconds, now: nowSeconds, tolerance: future },
    });
  }
}

function isSide(value: unknown): value is number {
  // A side may be Infinity ("no bound that way"), never negative or NaN.
  return typeof value === 'number' && value >= 0;
}

function invalidTolerance(): WebhookError {
  return new WebhookError(
    'invalid_config',
    'tolerance must be a non-negative number of seconds or { past, future } (each ≥ 0, Infinity allowed)',
  );
}

export function checkTolerance(tolerance: Tolerance | undefined): Tolerance {
  const value: unknown = tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw invalidTolerance();
    return value;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidTolerance();
  const keys = Object.keys(value);
  const { past, future } = value as { past?: unknown; future?: unknown };
  if (keys.length !== 2 || !isSide(past) || !isSide(future)) throw invalidTolerance();
  return { past, future };
}

export function toleranceWindow(tolerance: Tolerance | undefined): ToleranceWindow {
  const value = checkTolerance(tolerance);
  return typeof value === 'number' ? { past: value, future: value } : value;
}

export function checkTimestampMs(ms: number, window: TimestampWindow, name: string): void {
  const { past, future } = toleranceWindow(window.tolerance);
  const nowMs = (window.now ?? Date.now)();
  if (!Number.isFinite(nowMs)) throw new WebhookError('invalid_config', 'now() must return milliseconds');
  const details = { header: name.toLowerCase(), timestamp: ms, now: nowMs };
  if (nowMs - ms > past * 1000) {
    throw new WebhookError('timestamp_too_old', `${name} is more than ${past}s in the past`, {
      details: { ...details, tolerance: past },
    });
  }
  if (ms - nowMs > future * 1000) {
    throw new WebhookError('timestamp_too_new', `${name} is more than ${future}s in the future`, {
      details: { ...details, tolerance: future },
    });
  }
}
