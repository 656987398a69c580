/**
 * Compile-only: the broker consumers' structural driver types (runtime/receive/amqp-driver.ts,
 * nats-driver.ts) accept the drivers' real instances, typed by their own declarations
 * (devDependencies here, never needed by users). Checked by `npm run typecheck`.
 */
import type { Channel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { Consumer, JetStreamClient, JsMsg, MsgHdrs } from 'nats';
import type { AmqpChannel, AmqpConfirmChannel, AmqpMessage } from '../../runtime/receive/amqp-driver.js';
import type {
  JetStreamConsumer,
  JetStreamMessage,
  JetStreamPublisher,
  NatsHeaders,
} from '../../runtime/receive/nats-driver.js';

declare const channel: Channel;
declare const confirmChannel: ConfirmChannel;
declare const message: ConsumeMessage;
declare const consumer: Consumer;
declare const jsMsg: JsMsg;
declare const js: JetStreamClient;
declare const msgHdrs: MsgHdrs;

export const assignable: {
  channel: AmqpChannel;
  confirmChannel: AmqpConfirmChannel;
  message: AmqpMessage;
  consumer: JetStreamConsumer;
  jsMsg: JetStreamMessage;
  js: JetStreamPublisher;
  msgHdrs: NatsHeaders;
} = { channel, confirmChannel, message, consumer, jsMsg, js, msgHdrs };

// A plain object is no channel: the structural type has teeth.
// @ts-expect-error missing prefetch, consume, ack, …
export const notAChannel: AmqpChannel = { ack: () => undefined };
