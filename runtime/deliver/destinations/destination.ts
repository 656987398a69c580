/**
 * The `Destination` interface: where an endpoint whose URL is not http(s) is delivered — a broker
 * queue or stream. A factory claims URL schemes and opens a destination on the address the URL policy
 * checked; the destination publishes one signed message and resolves only on the broker's confirm.
 * Anything else (a rejection, a timeout) is a failed attempt, retried on the contract's schedule unless
 * `classify` says retrying cannot help. Types only; the pool (pool.ts) and the attempt use them.
 */
import type { ResolvedTarget } from '../url-policy.js';

/** One delivery as a broker message: the signed envelope and the signature headers. */
export interface DestinationMessage {
  /** The webhook id (`webhook-id`): brokers that dedupe use it as the message id. */
  readonly id: string;
  /** `content-type`, `webhook-id`, `webhook-timestamp`, `webhook-signature` and the send's headers. */
  readonly headers: Readonly<Record<string, string>>;
  /** The exact signed body (UTF-8 JSON). */
  readonly body: string;
}

export interface Destination {
  /** Resolves once the broker confirmed the message; rejects otherwise. Must honour `signal`. */
  publish(message: DestinationMessage, signal: AbortSignal): Promise<void>;
  /** True once the connection is gone: the pool opens a new one (re-checking the address) next time. */
  readonly closed?: boolean;
  close(): Promise<void>;
}

/** `retry`: the schedule applies (broker down, unroutable, no stream). `fail`: dead-letter now. */
export type DestinationVerdict = 'retry' | 'fail';

export interface DestinationFactory {
  /** URL schemes served, with the colon: `['amqp:', 'amqps:']`. */
  readonly schemes: readonly string[];
  /**
   * Connects to `target.address` (checked by the URL policy; never re-resolve `target.host`).
   * `target.url` carries the credentials and the options (exchange, subject…).
   */
  open(target: ResolvedTarget, options: { timeoutMs: number }): Promise<Destination>;
  /** Default: every failure is retried. */
  classify?(error: unknown): DestinationVerdict;
}
