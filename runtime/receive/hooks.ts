/** Types of the receiver's `logger` and `hooks` options (no imports of the pipeline). */
import type { WebhookErrorCode } from '../errors.js';

export type ReceiveOutcome =
  | 'processed'
  | 'duplicate'
  | 'in_progress'
  | 'ignored'
  | 'rejected'
  | 'queued'
  | 'failed';

/** The pino / console shape: an object of fields, then a message. */
export interface ReceiverLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface DeliveryTiming {
  readonly id?: string;
  readonly type?: string;
  /** Milliseconds since the delivery was received. */
  readonly durationMs: number;
}

export interface ReceiverHooks {
  /** A request arrived (before anything is read from it). */
  readonly received?: (info: { readonly method?: string; readonly url?: string }) => void;
  /** The signature (and replay window) checked out; `durationMs` is the time verification took. */
  readonly verified?: (info: DeliveryTiming) => void;
  /** An event id already processed: answered 200 without running a handler. */
  readonly duplicate?: (info: DeliveryTiming) => void;
  /** Answered 2xx: handled, queued (ack-fast) or ignored (no handler). */
  readonly processed?: (
    info: DeliveryTiming & { readonly outcome: 'processed' | 'queued' | 'ignored' },
  ) => void;
  /** Answered with an error (4xx, 5xx or 409 in progress), with its code and status. */
  readonly rejected?: (
    info: DeliveryTiming & {
      readonly code: WebhookErrorCode;
      readonly status: number;
      readonly outcome: ReceiveOutcome;
    },
  ) => void;
}
