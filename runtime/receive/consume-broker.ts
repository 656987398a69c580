/** The broker consumers bundled as the receiver part `consumers` (see parts.ts). */
import type { AmqpChannel } from '../drivers/amqp-consumer.js';
import type { JetStreamConsumer } from '../drivers/nats-consumer.js';
import { consumeAmqp } from './consume-amqp.js';
import { consumeJetStream } from './consume-jetstream.js';
import type { ConsumeOptions, Consumption, JetStreamConsumeOptions } from './consume-types.js';
import type { InlineHandle } from './consume-verdict.js';

export interface BrokerConsumers {
  readonly amqp: (
    handle: InlineHandle,
    channel: AmqpChannel,
    queue: string,
    options?: ConsumeOptions,
  ) => Promise<Consumption>;
  readonly jetStream: (
    handle: InlineHandle,
    consumer: JetStreamConsumer,
    options?: JetStreamConsumeOptions,
  ) => Promise<Consumption>;
}

export const brokerConsumers: BrokerConsumers = { amqp: consumeAmqp, jetStream: consumeJetStream };
