/** The receiver: verify → replay window → parse → validate → claim → handle → done; ack-fast queue. */
export { createReceiver, DEFAULT_MAX_BODY_BYTES } from './create-receiver.js';
export type { DeliveryTiming, ReceiverHooks, ReceiverLogger } from './hooks.js';
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
