/**
 * The default report of the `report` validation policy when no `onValidationIssue` is given: a warn
 * line through the receiver's logger, rate-limited per event type so a vendor's schema drift (every
 * delivery of a type breaking the contract) cannot flood the logs. Paths and messages only, never
 * payload values (they can be secrets or personal data).
 */
import type { ReceiverLogger } from './hooks.js';
import { safeLog } from './observe.js';
import type { ValidationIssue } from './types.js';

/** One line per event type per window; the count of the lines left out rides on the next one. */
export const VALIDATION_LOG_WINDOW_MS = 60_000;
/** Event types tracked at once (memory stays bounded whatever types arrive); the oldest is dropped. */
export const VALIDATION_LOG_MAX_TYPES = 256;
/** Issues shown per line; `issueCount` gives the total. */
const SHOWN_ISSUES = 3;
/** A schema's message is short; a longer one is cut rather than trusted. */
const MAX_MESSAGE = 200;

interface Window {
  readonly since: number;
  suppressed: number;
}

export type ValidationReport = (
  ids: { readonly id: string; readonly type: string },
  issues: readonly ValidationIssue[],
) => void;

export function validationLog(
  logger: ReceiverLogger,
  now: () => number = Date.now,
  windowMs: number = VALIDATION_LOG_WINDOW_MS,
  maxTypes: number = VALIDATION_LOG_MAX_TYPES,
): ValidationReport {
  const windows = new Map<string, Window>();
  return ({ id, type }, issues) => {
    const at = now();
    const open = windows.get(type);
    if (open !== undefined && at - open.since < windowMs) {
      open.suppressed++;
      return;
    }
    windows.delete(type);
    if (windows.size >= maxTypes) {
      const oldest = windows.keys().next().value as string;
      windows.delete(oldest);
    }
    windows.set(type, { since: at, suppressed: 0 });
    const first = issues[0];
    const fields: Record<string, unknown> = {
      id,
      type,
      issueCount: issues.length,
      issues: issues.slice(0, SHOWN_ISSUES).map((i) => ({
        path: i.path,
        message: i.message.length > MAX_MESSAGE ? `${i.message.slice(0, MAX_MESSAGE)}…` : i.message,
      })),
    };
    if (open !== undefined && open.suppressed > 0) fields['suppressed'] = open.suppressed;
    const more =
      open !== undefined && open.suppressed > 0 ? `; ${open.suppressed} more since the last line` : '';
    safeLog(
      logger,
      'warn',
      fields,
      `A "${type}" payload does not match the contract (validation: report, handled anyway): ` +
        `${issues.length} issue(s), first at "${first?.path ?? ''}"${more}`,
    );
  };
}
