/**
 * The part of amqplib the AMQP destination calls, declared structurally: the runtime type-checks
 * without amqplib, and the module itself (`import amqplib from 'amqplib'`) is assignable. Types only.
 */

export interface AmqpConnectOptions {
  readonly protocol: 'amqp' | 'amqps';
  readonly hostname: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  readonly vhost: string;
  readonly heartbeat?: number;
}

export interface AmqpPublishOptions {
  readonly mandatory?: boolean;
  readonly persistent?: boolean;
  readonly messageId?: string;
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
}

export interface AmqpReturnedMessage {
  readonly properties: { readonly messageId?: unknown };
}

export interface AmqpConfirmChannel {
  publish(
    exchange: string,
    routingKey: string,
    content: Uint8Array, // a Buffer at run time (amqplib requires one); typed structurally so customers need no @types/node
    options: AmqpPublishOptions,
    callback: (error: unknown, ok?: unknown) => void,
  ): boolean;
  on(event: 'return', listener: (message: AmqpReturnedMessage) => void): unknown;
  on(event: 'error' | 'close', listener: (error?: unknown) => void): unknown;
  close(): Promise<void>;
}

export interface AmqpConnection {
  createConfirmChannel(): Promise<AmqpConfirmChannel>;
  on(event: 'error' | 'close', listener: (error?: unknown) => void): unknown;
  close(): Promise<void>;
}

/** `import amqplib from 'amqplib'` (the promise API). */
export interface Amqplib {
  connect(url: AmqpConnectOptions, socketOptions?: Record<string, unknown>): Promise<AmqpConnection>;
}
