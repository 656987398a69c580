/**
 * The part of the `nats` JetStream client the broker consumer and the ack-fast JetStream queue call,
 * declared structurally: the runtime never imports nats, and a real `Consumer`, `JsMsg`, `JetStreamClient`
 * and `headers()` are assignable (test/types/brokers.test-d.ts checks it against nats' own types). Types only.
 */

/** A message's headers (nats `MsgHdrs`): iterable as [name, values]. */
export interface NatsHeaders extends Iterable<[string, string[]]> {
  set(name: string, value: string): void;
}

export interface JetStreamMessage {
  readonly data: Uint8Array;
  readonly headers: NatsHeaders | undefined;
  readonly seq: number;
  /** `redeliveryCount` is 1 on the first delivery. */
  readonly info: { readonly redeliveryCount: number; readonly timestampNanos: number };
  ack(): void;
  nak(millis?: number): void;
  term(reason?: string): void;
  working(): void;
}

export interface JetStreamMessages extends AsyncIterable<JetStreamMessage> {
  close(): Promise<unknown>;
}

export interface JetStreamConsumer {
  consume(options?: { readonly max_messages?: number }): Promise<JetStreamMessages>;
}

export interface JetStreamPublisher {
  publish(
    subject: string,
    payload?: Uint8Array,
    options?: { readonly msgID?: string; readonly headers?: NatsHeaders },
  ): Promise<unknown>;
}
