/**
 * The part of an `amqplib` channel the broker consumers and the ack-fast AMQP queue call, declared
 * structurally: the runtime never imports amqplib, and a real `Channel` / `ConfirmChannel` is
 * assignable (test/types/brokers.test-d.ts checks it against amqplib's own types). Types only.
 */

/** Header values as amqplib decodes them: strings, Buffers (long strings), numbers, arrays. */
export type AmqpHeaders = { readonly [name: string]: unknown };

export interface AmqpMessage {
  readonly content: Uint8Array;
  readonly fields: { readonly deliveryTag: number; readonly redelivered: boolean };
  readonly properties: {
    readonly headers?: AmqpHeaders | undefined;
    readonly messageId?: unknown;
    readonly contentType?: unknown;
    readonly timestamp?: unknown;
  };
}

export interface AmqpPublishOptions {
  readonly headers?: AmqpHeaders;
  readonly messageId?: string;
  readonly contentType?: string;
  readonly persistent?: boolean;
  readonly timestamp?: number;
}

export interface AmqpChannel {
  prefetch(count: number, global?: boolean): Promise<unknown>;
  consume(
    queue: string,
    onMessage: (message: AmqpMessage | null) => void,
    options?: { readonly noAck?: boolean },
  ): Promise<{ readonly consumerTag: string }>;
  cancel(consumerTag: string): Promise<unknown>;
  ack(message: AmqpMessage): void;
  nack(message: AmqpMessage, allUpTo?: boolean, requeue?: boolean): void;
  sendToQueue(queue: string, content: Uint8Array, options?: AmqpPublishOptions): boolean;
}

/** A channel in confirm mode: the ack-fast queue answers 2xx only after the broker's confirm. */
export interface AmqpConfirmChannel extends AmqpChannel {
  sendToQueue(
    queue: string,
    content: Uint8Array,
    options?: AmqpPublishOptions,
    callback?: (error: unknown, ok: unknown) => void,
  ): boolean;
}
