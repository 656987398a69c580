/**
 * Compile-only: the broker consumers' structural driver types (runtime/drivers/amqp-consumer.ts,
 * nats-consumer.ts) accept the drivers' real instances, typed by their own declarations
 * (devDependencies here, never needed by users). Checked by `npm run typecheck`.
 */
import type { Channel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { Consumer, JetStreamClient, JsMsg, MsgHdrs } from 'nats';
import type { AmqpChannel, AmqpConfirmChannel, AmqpMessage } from '../../runtime/drivers/amqp-consumer.js';
import type {
  JetStreamConsumer,
  JetStreamMessage,
  JetStreamPublisher,
  NatsHeaders,
} from '../../runtime/drivers/nats-consumer.js';

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
