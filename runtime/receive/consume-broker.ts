/** The broker consumers bundled as the receiver part `consumers` (see parts.ts). */
import type { AmqpChannel } from './amqp-driver.js';
import { consumeAmqp } from './consume-amqp.js';
import { consumeJetStream } from './consume-jetstream.js';
import type { ConsumeOptions, Consumption, JetStreamConsumeOptions } from './consume-types.js';
import type { InlineHandle } from './consume-verdict.js';
import type { JetStreamConsumer } from './nats-driver.js';

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
