/** Broker destinations: the `Destination` interface, AMQP (RabbitMQ) and NATS JetStream. */
export { type AmqpAddress, amqpAddress, amqpDestination } from './amqp.js';
export type {
  Destination,
  DestinationFactory,
  DestinationMessage,
  DestinationVerdict,
} from './destination.js';
export { natsDestination, natsSubject } from './nats.js';
export { redactUrl } from './redact.js';
