/**
 * Replay-window helpers shared by Standard Webhooks, the simple HMAC scheme and the presets that sign a
 * timestamp (Stripe, Slack). No `node:*` imports.
 *
 * Exports:
 * - `DEFAULT_TOLERANCE_SECONDS` (300)
 * - `parseUnixSeconds(text, headerName)` — strict: ASCII digits only, no sign/space/exponent/fraction,
 *   no leading zeros, at most 15 digits; else `WebhookError('malformed_header')`.
 * - `checkTimestamp(seconds, { tolerance, now }, headerName)` — throws `timestamp_too_old` /
 *   `timestamp_too_new` when `|now - seconds| > tolerance` (exactly `tolerance` passes).
 * - `checkTolerance(tolerance)` — `invalid_config` unless a finite number ≥ 0 (for scheme constructors).
 */
import { WebhookError } from './errors.js';

export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface TimestampWindow {
  /** Seconds, both directions. Default 300. */
  readonly tolerance?: number | undefined;
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
  const tolerance = checkTolerance(window.tolerance);
  const nowMs = (window.now ?? Date.now)();
  if (!Number.isFinite(nowMs)) throw new WebhookError('invalid_config', 'now() must return milliseconds');
  const nowSeconds = Math.floor(nowMs / 1000);
  if (nowSeconds - seconds > tolerance) {
    throw new WebhookError('timestamp_too_old', `${headerName} is more than ${tolerance}s in the past`, {
      details: { header: headerName.toLowerCase(), timestamp: seconds, now: nowSeconds, tolerance },
    });
  }
  if (seconds - nowSeconds > tolerance) {
    throw new WebhookError('timestamp_too_new', `${headerName} is more than ${tolerance}s in the future`, {
      details: { header: headerName.toLowerCase(), timestamp: seconds, now: nowSeconds, tolerance },
    });
  }
}

export function checkTolerance(tolerance: number | undefined): number {
  const value = tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new WebhookError('invalid_config', 'tolerance must be a non-negative number of seconds');
  }
  return value;
}
