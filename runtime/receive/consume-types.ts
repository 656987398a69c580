/** The options and handle of the broker consumers (consume-amqp.ts, consume-jetstream.ts). Types only. */
import type { JetStreamMessage } from './nats-driver.js';

/** Options both consumers take. */
export interface ConsumeOptions {
  /** Messages in flight at once (the broker's prefetch / pull batch). Default 16. */
  readonly prefetch?: number;
  /** Handler runs before a message is dead-lettered. Default 5. */
  readonly maxAttempts?: number;
}

export interface JetStreamConsumeOptions extends ConsumeOptions {
  /** Stores a dead-lettered message (e.g. publishes it to a dead-letter subject) before `term()`. */
  readonly deadLetter?: (message: JetStreamMessage, reason: string) => Promise<unknown> | unknown;
  /** Redelivery delay after a failed attempt. Default 1 s doubling, at most 60 s. */
  readonly retryDelayMs?: (attempt: number) => number;
  /** How often a running handler tells the server it is still working. Default 10 s (ack wait is 30 s). */
  readonly workingEveryMs?: number;
}

export interface Consumption {
  /** Stop taking messages and wait (up to `timeoutMs`, default 30 s) for the ones in flight. */
  stop(options?: { readonly timeoutMs?: number }): Promise<void>;
}
