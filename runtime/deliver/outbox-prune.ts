/**
 * What the outbox pruners share: their options and result, table names, and the pause between
 * batches. A pruner deletes finished history only — a message whose every delivery succeeded or went
 * dead before the message cutoff (with its deliveries and attempts), and attempts of deliveries that
 * finished before the attempt cutoff. Pending and leased deliveries, and everything that finished
 * inside the window (the dead letters the redelivery tools and the portal list), are never touched.
 */
import { WebhookError } from '../errors.js';
import type { OutboxTables, PruneOutboxOptions } from './prune-types.js';

export type { OutboxTables, PruneOutboxOptions, PruneOutboxResult } from './prune-types.js';

export const DEFAULT_PRUNE_BATCH = 100;

const PART = '(?:[A-Za-z_][A-Za-z0-9_]*|"[A-Za-z_][A-Za-z0-9_]*")';
const TABLE = new RegExp(`^${PART}(?:\\.${PART})?$`);

/** Table names are interpolated into SQL: only (optionally schema-qualified, quoted) identifiers pass. */
export function pruneTables(tables: OutboxTables | undefined, fallback: OutboxTables, who: string) {
  const chosen = tables ?? fallback;
  for (const [role, name] of Object.entries(chosen)) {
    if (typeof name !== 'string' || !TABLE.test(name)) {
      throw new WebhookError(
        'invalid_config',
        `${who}: tables.${role} must be an SQL identifier (optionally "schema"."table"), got ${JSON.stringify(name)}`,
      );
    }
  }
  return chosen;
}

export interface PruneLimits {
  readonly batch: number;
  readonly attemptsBefore: number;
  readonly messagesBefore: number;
}

export function pruneLimits(options: PruneOutboxOptions, who: string): PruneLimits {
  const batch = options.batchSize ?? DEFAULT_PRUNE_BATCH;
  const check = (name: string, value: number, min: number) => {
    if (!Number.isFinite(value) || value < min) {
      throw new WebhookError('invalid_config', `${who}: ${name} must be a number ≥ ${min}, got ${value}`);
    }
  };
  check('keepAttemptsMs', options.keepAttemptsMs, 0);
  check('keepMessagesMs', options.keepMessagesMs, 0);
  check('batchSize', batch, 1);
  const now = options.now ?? Date.now();
  return {
    batch: Math.floor(batch),
    attemptsBefore: now - options.keepAttemptsMs,
    messagesBefore: now - options.keepMessagesMs,
  };
}

/** Gives the event loop back between batches (a timer turn, or `pauseMs`). */
export function pause(ms = 0): Promise<void> {
  return new Promise((resolve) => {
    if (ms > 0) setTimeout(resolve, ms);
    else setImmediate(resolve);
  });
}
