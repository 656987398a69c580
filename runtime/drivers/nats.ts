/**
 * The part of the `nats` client the JetStream destination calls, declared structurally: the runtime
 * type-checks without `nats`, and the module (`import * as nats from 'nats'`) is assignable. Types only.
 */

export interface NatsHeaders {
  set(key: string, value: string): void;
}

export interface NatsPubAck {
  readonly stream: string;
  readonly seq: number;
  readonly duplicate: boolean;
}

export interface NatsJetStreamClient<H extends NatsHeaders = NatsHeaders> {
  publish(
    subject: string,
    payload: Uint8Array,
    options: { msgID?: string; headers?: H; timeout?: number },
  ): Promise<NatsPubAck>;
}

export interface NatsConnection<H extends NatsHeaders = NatsHeaders> {
  jetstream(): NatsJetStreamClient<H>;
  isClosed(): boolean;
  close(): Promise<void>;
}

export interface NatsConnectOptions {
  servers: string;
  user?: string;
  pass?: string;
  token?: string;
  timeout?: number;
  reconnect?: boolean;
  name?: string;
}

/** `import * as nats from 'nats'` (`H`: its `MsgHdrs`, what `headers()` makes and `publish` takes). */
export interface NatsModule<H extends NatsHeaders = NatsHeaders> {
  connect(options: NatsConnectOptions): Promise<NatsConnection<H>>;
  headers(): H;
}
