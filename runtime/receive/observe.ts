/**
 * Logging and lifecycle hooks of the receiver: a pino/console-shaped `logger` (default: console,
 * warnings and errors only) and `hooks` called with durations. A hook or logger that throws never
 * changes an answer.
 */
import type { WebhookError } from '../errors.js';
import type { DeliveryTiming, HookSource, ReceiverHooks, ReceiverLogger } from './hooks.js';
import type { ReceiveResult } from './types.js';

const PREFIX = '[gen-webhooks]';

/** The default logger: warnings and errors to the console, no info lines at webhook rates. */
export const consoleLogger: ReceiverLogger = {
  info: () => {},
  warn: (fields, message) => console.warn(`${PREFIX} ${message}`, fields),
  error: (fields, message) => console.error(`${PREFIX} ${message}`, fields),
};

/** Calls a hook or a log method, swallowing whatever it throws. */
export function safely<A>(fn: ((arg: A) => void) | undefined, arg: A): void {
  if (fn === undefined) return;
  try {
    fn(arg);
  } catch {
    // Observability must not change the answer.
  }
}

export function safeLog(
  logger: ReceiverLogger,
  level: keyof ReceiverLogger,
  fields: Record<string, unknown>,
  message: string,
): void {
  try {
    logger[level](fields, message);
  } catch {
    // Observability must not change the answer.
  }
}

export function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

/** Fires `duplicate` / `processed` / `rejected` for a finished delivery. */
export function reportResult(
  hooks: ReceiverHooks,
  result: ReceiveResult,
  started: number,
  source: HookSource = {},
): void {
  const base: DeliveryTiming = {
    ...source,
    ...(result.id === undefined ? {} : { id: result.id }),
    ...(result.type === undefined ? {} : { type: result.type }),
    durationMs: elapsed(started),
  };
  const { outcome } = result;
  if (outcome === 'duplicate') safely(hooks.duplicate, base);
  else if (outcome === 'processed' || outcome === 'queued' || outcome === 'ignored')
    safely(hooks.processed, { ...base, outcome });
  else {
    const error: WebhookError | undefined = result.error;
    safely(hooks.rejected, {
      ...base,
      code: error?.code ?? 'in_progress',
      status: result.status,
      outcome,
    });
  }
}
