/** The receiver: verify → replay window → parse → validate → claim → handle → done; ack-fast queue. */
export { DEFAULT_MAX_BODY_BYTES } from './create-receiver.js';
export type { DeliveryTiming, ReceiverHooks, ReceiverLogger } from './hooks.js';
export { createParser } from './parser-node.js';
export { createReceiver } from './receiver-node.js';
export type {
  AnyReceivedEvent,
  CommonReceiverOptions,
  DedupeOptions,
  DrainResult,
  ErrorContext,
  ExhaustiveHandlers,
  Handler,
  HandlerOptions,
  Handlers,
  HandlerTx,
  NodeHandler,
  ReceivedEvent,
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
export type {
  ParsedEvent,
  ParseInput,
  Parser,
  ParserOptions,
} from './verify-and-parse.js';
