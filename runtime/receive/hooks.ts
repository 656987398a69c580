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

/**
 * Where a hook fired: absent for the HTTP request, `'queue'` for an event the ack-fast worker took
 * from its queue (`attempt`: that event's handler runs so far, this one included).
 */
export interface HookSource {
  readonly source?: 'queue';
  readonly attempt?: number;
}

export interface DeliveryTiming extends HookSource {
  readonly id?: string;
  readonly type?: string;
  /** Milliseconds since the delivery was received (taken from the queue, for `source: 'queue'`). */
  readonly durationMs: number;
}

export interface ReceiverHooks {
  /**
   * A request arrived (before anything is read from it), or the ack-fast worker took a queued event
   * (`source: 'queue'`, with its `id` and `type`).
   */
  readonly received?: (
    info: HookSource & {
      readonly method?: string;
      readonly url?: string;
      readonly id?: string;
      readonly type?: string;
    },
  ) => void;
  /**
   * The signature (and replay window) checked out; `durationMs` is the time verification took. Fired
   * on the request only: the worker runs events that were verified before they were queued.
   */
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
