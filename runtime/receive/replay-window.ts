/**
 * The dedupe TTL must cover the replay window. A scheme that signs a timestamp accepts a captured
 * delivery again for as long as its timestamp is inside the window (`past` + `future`); once the
 * delivery's id has left the store, only the id stood in the way, so a TTL shorter than the window
 * lets the replay run its handler again. `createReceiver` refuses it (`invalid_config`).
 */
import type { Contract, EventMapBase } from '../contract.js';
import { WebhookError } from '../errors.js';
import { type Tolerance, toleranceWindow } from '../timestamp.js';

/**
 * The presets whose scheme signs a timestamp (`declared.timestampSigned`), with the tolerance their
 * scheme uses when the receiver sets none (test/security/dedupe-ttl-window.test.ts keeps this table
 * equal to the presets' declarations).
 */
export const PRESET_TOLERANCE: { readonly [preset: string]: Tolerance } = {
  stripe: 300,
  slack: 300,
  discord: 300,
  svix: 300,
  zoom: 300,
  hubspot: 300,
  mailgun: 300,
  sendgrid: 300,
  plaid: 300,
  twitch: 600,
  linear: 60,
  paddle: 5,
};

/** One second more than `past` + `future`: whole-second timestamps are floored, and the bound passes. */
const GRANULARITY_MS = 1000;

/** The scheme's name and its tolerance, for a contract whose scheme signs a timestamp. */
function signedWindow(
  contract: Contract<EventMapBase>,
  tolerance: Tolerance | undefined,
): { readonly name: string; readonly tolerance: Tolerance | undefined } | undefined {
  const signature = contract.signature;
  switch (signature.kind) {
    case 'standard-webhooks':
      return { name: 'standard-webhooks', tolerance };
    case 'hmac':
    case 'asymmetric':
      return signature.timestampHeader === undefined ? undefined : { name: signature.kind, tolerance };
    case 'preset': {
      const fallback = PRESET_TOLERANCE[signature.preset];
      return fallback === undefined
        ? undefined
        : { name: signature.preset, tolerance: tolerance ?? fallback };
    }
    default:
      return undefined;
  }
}

/**
 * `invalid_config` when `ttlMs` (the receiver's, else its store's or the default) is shorter than the
 * replay window of the contract's scheme. Nothing to check without dedupe, for a scheme with no signed
 * timestamp, for a caller's own `scheme` (its window is its own), or for an infinite side (no TTL can
 * cover it: the caller chose to accept any age).
 */
export function checkReplayTtl(
  contract: Contract<EventMapBase>,
  o: { readonly tolerance?: Tolerance | undefined; readonly scheme?: unknown },
  ttlMs: number,
  source: 'ttlMs' | "the store's ttlMs" | 'the default ttlMs',
): void {
  if (o.scheme !== undefined) return;
  const signed = signedWindow(contract, o.tolerance);
  if (signed === undefined) return;
  const { past, future } = toleranceWindow(signed.tolerance);
  if (!Number.isFinite(past) || !Number.isFinite(future)) return;
  const windowMs = (past + future) * 1000 + GRANULARITY_MS;
  if (ttlMs >= windowMs) return;
  throw new WebhookError(
    'invalid_config',
    `${source} (${ttlMs}) is shorter than the replay window of ${signed.name} (${past * 1000} past + ${future * 1000} future + ${GRANULARITY_MS} for whole-second timestamps = ${windowMs} ms): a delivery replayed after its id expired would run again. Raise ttlMs to at least ${windowMs}, or lower tolerance.`,
    { details: { ttlMs, windowMs, past, future } },
  );
}
