/** The receiver: verify → replay window → parse → validate → claim → handle → done; ack-fast queue. */
export type { NodeAdapterOptions } from '../adapters/node-types.js';
export { ackFastAmqp, ackFastJetStream } from './ack-fast-broker.js';
export { type AckFastOptions, ackFastQueue } from './ack-fast-mode.js';
export type { ConsumeOptions, Consumption, JetStreamConsumeOptions } from './consume-types.js';
export { contractHandshakes } from './contract-handshakes.js';
export { createReceiverWith, DEFAULT_MAX_BODY_BYTES } from './create-receiver.js';
export { decodeBody } from './decode-body.js';
export { type EnvelopeReader, envelopeReader } from './envelope-reader.js';
export type { DeliveryTiming, ReceiverHooks, ReceiverLogger } from './hooks.js';
export { contentId, type ReceiverParts, schemeParts } from './parts.js';
export {
  asymmetricParts,
  hmacParts,
  presetParts,
  standardWebhooksParts,
  unsignedParts,
} from './parts-node.js';
export { receiveTracing } from './receive-tracing.js';
export { receiverHooks } from './receiver-hooks.js';
export { createParser, createReceiver } from './receiver-node.js';
export { headerSelector } from './select-header.js';
export { schemaSelector } from './select-schema.js';
export type {
  AckFast,
  AnyReceivedEvent,
  Checked,
  CommonReceiverOptions,
  DedupeOptions,
  DeliverySteps,
  DrainResult,
  ErrorContext,
  ExhaustiveHandlers,
  Handler,
  HandlerOptions,
  Handlers,
  HandlerTx,
  NodeHandler,
  ReceivedEvent,
  ReceiveObserver,
  ReceiveOutcome,
  ReceiveRequest,
  ReceiveResult,
  Receiver,
  ReceiverOptions,
  UnknownEvent,
  UnknownEventPolicy,
  ValidationIssue,
  ValidationPolicy,
  WorkerOptions,
} from './types.js';
export {
  createParserWith,
  type ParsedEvent,
  type ParseInput,
  type Parser,
  type ParserOptions,
} from './verify-and-parse.js';
