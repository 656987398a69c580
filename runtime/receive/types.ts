/** Public types of the receiver (`createReceiver`). */
import type { NodeAdapterOptions, NodeRequest, NodeResponse } from '../adapters/node-types.js';
import type { EventMapBase, EventName } from '../contract.js';
import type { WebhookError } from '../errors.js';
import type { ReceiveTracing } from '../otel/types.js';
import type { PresetOptions } from '../presets/types.js';
import type { StopOptions, StopResult } from '../shutdown.js';
import type {
  HeadersInput,
  PublicKeyInput,
  RawBody,
  Secret,
  SignatureScheme,
  VerifiedDelivery,
  VerifyInput,
} from '../signing/scheme.js';
import type { IdempotencyStore } from '../stores/types.js';
import type { Tolerance } from '../timestamp.js';
import type { AmqpChannel } from './amqp-driver.js';
import type { ConsumeOptions, Consumption, JetStreamConsumeOptions } from './consume-types.js';
import type { AnyHandler, EventParts, ValidationIssue } from './handler-event.js';
import type { ReceiveOutcome, ReceiverHooks, ReceiverLogger } from './hooks.js';
import type { JetStreamConsumer } from './nats-driver.js';

export type { ValidationIssue } from './handler-event.js';
export type { ReceiveOutcome } from './hooks.js';

/**
 * - `report` (the receiver's default): the handler runs anyway with `issues` (and `data` as received,
 *   still typed as the contract says: `issues.length === 0` is what makes that type true);
 *   `onValidationIssue` is called, else the receiver's `logger` warns (rate-limited per event type).
 * - `strict`: an invalid payload is answered 400 with the issues; the handler does not run.
 * - `off`: no validation; `data` is the payload as received.
 */
export type ValidationPolicy = 'strict' | 'report' | 'off';

/** What a handler receives. `tx` is the database transaction in transactional mode. */
export interface ReceivedEvent<Type extends string, Data, Tx = undefined> {
  /** Event id (the dedupe key without its contract prefix): the delivery id header or the envelope id. */
  readonly id: string;
  /** Contract event name. */
  readonly type: Type;
  /** When the event happened (envelope timestamp) or was signed (signature timestamp), if known. */
  readonly timestamp: Date | undefined;
  readonly data: Data;
  /** Request headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** Validation issues (`report` policy); empty when the payload is valid or validation is off. */
  readonly issues: readonly ValidationIssue[];
  readonly tx: Tx;
  /**
   * Aborted at the deadline of `receiver.close({ timeoutMs })`: stop and throw (e.g.
   * `event.signal.throwIfAborted()`); the claim is released, not completed, so a retry runs the
   * event again (docs/shutdown.md). Pass it on to `fetch` and database calls.
   */
  readonly signal: AbortSignal;
}

/** An event the contract does not define, given to an `unknownEvent` catch-all. */
export type UnknownEvent<Tx = undefined> = ReceivedEvent<string, unknown, Tx>;

export type Handler<M extends EventMapBase, K extends EventName<M>, Tx = undefined> = (
  event: ReceivedEvent<K, M[K], Tx>,
) => unknown;

export type Handlers<M extends EventMapBase, Tx = undefined> = {
  readonly [K in EventName<M>]?: Handler<M, K, Tx>;
};
export type ExhaustiveHandlers<M extends EventMapBase, Tx = undefined> = {
  readonly [K in EventName<M>]-?: Handler<M, K, Tx>;
};

/** Any contract event, as a union narrowed by `type` (what `onAny` and `preHandle` receive). */
export type AnyReceivedEvent<M extends EventMapBase, Tx = undefined> = {
  [K in EventName<M>]: ReceivedEvent<K, M[K], Tx>;
}[EventName<M>];

/**
 * `exhaustive: true` makes a missing handler a compile error. Without it `handlers` may be left out
 * and handlers added with `receiver.on(name, handler)`.
 */
export type HandlerOptions<M extends EventMapBase, Tx> =
  | { readonly exhaustive: true; readonly handlers: ExhaustiveHandlers<M, Tx> }
  | { readonly exhaustive?: false; readonly handlers?: Handlers<M, Tx> };

export type UnknownEventPolicy<Tx = undefined> = 'ignore' | 'reject' | ((event: UnknownEvent<Tx>) => unknown);

/**
 * Dedupe on: a store is required (or `dedupe: false`, explicitly at-least-once). With
 * `transactional: true` each handler runs inside `store.transaction` and receives its `tx`.
 */
export type DedupeOptions<Tx, T extends boolean> =
  | {
      readonly store: IdempotencyStore<Tx>;
      /** Run each handler inside the store's transaction and hand it `tx` (SQLite, PostgreSQL). */
      readonly transactional?: T;
      readonly dedupe?: true;
    }
  | {
      /** Explicitly no dedupe: every delivery runs the handler (at-least-once). */
      readonly dedupe: false;
      readonly store?: undefined;
      readonly transactional?: false;
    };

/** The `tx` handlers receive: the store's transaction type in transactional mode, else `undefined`. */
export type HandlerTx<Tx, T extends boolean> = T extends true ? Tx : undefined;

export interface WorkerOptions {
  /** Events processed at once. Default 1. */
  readonly concurrency?: number;
  /** Most rows taken per poll (never more than the free slots, so no taken row waits). Default 10. */
  readonly batchSize?: number;
  /** Idle poll interval in ms. Default 1000 (a delivery received by this process wakes it at once). */
  readonly pollMs?: number;
  /** Attempts before an event is dead-lettered (kept as `failed`). Default 10. */
  readonly maxAttempts?: number;
  /** Delay before attempt `attempt + 1`, in ms. Default exponential 1 s × 2^(attempt-1), capped at 1 h. */
  readonly backoff?: (attempt: number) => number;
}

/** The ack-fast mode, as `ackFastQueue()` makes it (what it holds is the receiver's business). */
export interface AckFast {
  readonly mode: 'ack-fast';
}

export interface CommonReceiverOptions<M extends EventMapBase> {
  /** Signing secret(s) for the contract's signature scheme; several during a rotation. */
  readonly secret?: Secret | readonly Secret[];
  /**
   * The sender's public key(s), for a contract signed with a key pair (signature kind `asymmetric`):
   * PEM, base64 DER, a JWK, or (Ed25519) the 32 raw bytes; several during a rotation.
   */
  readonly publicKey?: PublicKeyInput | readonly PublicKeyInput[];
  /** A scheme to use instead of the contract's (e.g. a provider preset or a custom scheme). */
  readonly scheme?: SignatureScheme;
  /** Provider-specific options for preset schemes (see PresetOptions). */
  readonly preset?: PresetOptions;
  /**
   * The verify token you gave the provider, for a contract whose echo handshake checks one
   * (`x-gen-webhooks.handshakes[].verifyToken`); required then. A handshake carrying another token
   * (or none) is answered 403 and its challenge is never echoed.
   */
  readonly verifyToken?: string;
  /** Replay window in seconds, or `{ past, future }`. Default 300 both ways (or the preset's). */
  readonly tolerance?: Tolerance;
  /** Clock in ms since the epoch. Default `Date.now`. */
  readonly now?: () => number;
  /** Lease of a claim: a crashed handler's event is retried after this. Default 30 s. */
  readonly leaseMs?: number;
  /** How long processed ids are remembered. Default the store's (7 days). */
  readonly ttlMs?: number;
  /** Default `report`: a provider's real payloads often break its own schema (docs/evolution.md). */
  readonly validation?: ValidationPolicy;
  readonly validationByEvent?: { readonly [K in EventName<M>]?: ValidationPolicy };
  /**
   * Called with the issues of an invalid payload under the `report` policy (and `strict`, before the
   * 400). Without it, `report` warns through `logger`: once per event type per minute.
   */
  readonly onValidationIssue?: (
    event: { readonly id: string; readonly type: string; readonly data: unknown },
    issues: readonly ValidationIssue[],
  ) => void;
  /**
   * Deadline of each idempotency-store and queue call in ms (PostgreSQL, Redis, custom stores; the
   * memory and SQLite stores answer within the process); past it the delivery is answered 503 with
   * Retry-After. Default 1500, well inside the strictest provider timeout (Discord, 3 s); 0 for none.
   */
  readonly storeTimeoutMs?: number;
  /** Largest accepted body. Default 5 MiB. */
  readonly maxBodyBytes?: number;
  /** Called for every rejected or failed delivery (never throws into the response). */
  readonly onError?: (error: WebhookError, context: ErrorContext) => void;
  /**
   * `ackFastQueue({ queue?, worker? })`: queue each verified event durably, answer at once, process it
   * in a worker. Without it the handler runs before the answer (inline), except for a preset that
   * defaults to ack-fast (Slack, Discord, …) with a store that queues durably; `false` keeps those inline.
   */
  readonly ackFast?: AckFast | false;
  /** Lease-owner token generator (injectable for tests). Default: a random UUID per receiver plus a counter. */
  readonly token?: () => string;
  /** Where warnings and errors go (pino, console, …). Default: the console, warnings and errors only. */
  readonly logger?: ReceiverLogger;
  /**
   * Lifecycle hooks with durations (received, verified, duplicate, processed, rejected):
   * `receiverHooks({ … })`, which carries the code that calls them, so a receiver without hooks
   * bundles none of it.
   */
  readonly hooks?: ReceiverHooks & ReceiveObserver;
  /**
   * Tracing: a span per delivery with child spans, through `otelTracing(api)` (OpenTelemetry) or
   * `receiveTracing(tracer)` for a tracer of your own.
   */
  readonly tracing?: ReceiveTracing & ReceiveObserver;
}

/** What a payload check gives back: the data (parsed, or as received) and its issues. */
export interface Checked {
  readonly data: unknown;
  readonly issues: readonly ValidationIssue[];
}

/**
 * The steps of one delivery a `ReceiveObserver` may wrap: verify (signature and replay window),
 * check (the payload against the contract), run (claim → handler → done). `identified` is told the
 * delivery's id and type once known (`unknown`: the contract has no event of that type) and `done`
 * its answer.
 */
export interface DeliverySteps {
  verify(input: VerifyInput): VerifiedDelivery | Promise<VerifiedDelivery>;
  check(
    name: string,
    data: unknown,
    pointer: string,
    ids: { id: string; type: string },
  ): Checked | Promise<Checked>;
  /** `onRun` is called just before the handler is invoked. */
  run(event: EventParts, handler: AnyHandler, onRun?: () => void): Promise<ReceiveResult>;
  identified?(id: string, type: string, unknown: boolean): void;
  done?(result: ReceiveResult): void;
}

/**
 * Observes deliveries (`receiverHooks`, `receiveTracing`, `otelTracing`): for each request, wraps the
 * receiver's steps (or another observer's) in its own. The code that observes lives in the observer,
 * so a receiver given none carries none. It must never throw or change an answer.
 */
export interface ReceiveObserver {
  start(request: ReceiveRequest, steps: DeliverySteps): DeliverySteps;
}

export type ReceiverOptions<
  M extends EventMapBase,
  Tx = undefined,
  T extends boolean = false,
> = CommonReceiverOptions<M> &
  DedupeOptions<Tx, T> &
  HandlerOptions<M, HandlerTx<Tx, T>> & {
    /**
     * What to do with event types the contract does not define. Default `ignore`: 2xx (so no
     * retries), handed to `onUnknown` when there is one, else logged as a warning.
     */
    readonly unknownEvent?: UnknownEventPolicy<HandlerTx<Tx, T>>;
    /** Runs for every verified delivery whose type the contract does not define (not with `reject`). */
    readonly onUnknown?: (event: UnknownEvent<HandlerTx<Tx, T>>) => unknown;
    /**
     * Runs before the handlers of every delivery that has one, inside the claim (and transaction);
     * throwing fails the delivery like a handler (500, the retry runs it again).
     */
    readonly preHandle?: (
      event: AnyReceivedEvent<M, HandlerTx<Tx, T>> | UnknownEvent<HandlerTx<Tx, T>>,
    ) => unknown;
  };

export interface ErrorContext {
  readonly outcome: ReceiveOutcome;
  readonly id?: string;
  readonly type?: string;
}

export interface ReceiveRequest {
  readonly headers: HeadersInput;
  readonly body: RawBody;
  /** Full public URL (schemes that sign it need it). */
  readonly url?: string;
  /** HTTP method; handshakes sent as GET/OPTIONS (Meta, Okta, CloudEvents) need it. Default POST. */
  readonly method?: string;
}

export interface ReceiveResult {
  readonly status: number;
  /** JSON text of the response body. */
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly outcome: ReceiveOutcome;
  readonly error?: WebhookError;
  /** The event id, once known. */
  readonly id?: string;
  readonly type?: string;
}

/** A `node:http` request listener (structural request/response types: no Node types needed). */
export type NodeHandler = (req: NodeRequest, res: NodeResponse) => void;

export interface DrainResult {
  /** Events handled (or found duplicate) and removed from the queue. */
  readonly processed: number;
  /** Attempts that failed (retried later or dead-lettered). */
  readonly failed: number;
}

/** A callback compared bivariantly, so `Receiver<PetstoreEvents>` stays assignable to `Receiver`. */
type Listener<E> = { bivarianceHack(event: E): unknown }['bivarianceHack'];

// The listener methods read the event map and tx from `this` (the phantom fields) rather than from
// `M`, so `Receiver<PetstoreEvents>` stays assignable to `Receiver` (M stays covariant).
interface TypedReceiver {
  readonly __events?: EventMapBase;
  readonly __tx?: unknown;
}
type EventsOf<R extends TypedReceiver> = NonNullable<R['__events']>;
type TxOf<R extends TypedReceiver> = R extends { readonly __tx?: infer T } ? T : undefined;

export interface Receiver<M extends EventMapBase = EventMapBase, Tx = unknown> {
  /** Adds a handler for one contract event (after the `handlers` map entry; all run, in order). */
  on<R extends TypedReceiver, K extends EventName<EventsOf<R>>>(
    this: R,
    name: K,
    handler: Listener<ReceivedEvent<K, EventsOf<R>[K], TxOf<R>>>,
  ): R;
  /** Adds a handler for every contract event (after the event's own handlers). */
  onAny<R extends TypedReceiver>(this: R, handler: Listener<AnyReceivedEvent<EventsOf<R>, TxOf<R>>>): R;
  /** Adds a handler for verified deliveries whose type the contract does not define. */
  onUnknown<R extends TypedReceiver>(this: R, handler: Listener<UnknownEvent<TxOf<R>>>): R;
  /** The framework-neutral entry point. */
  handle(request: ReceiveRequest): Promise<ReceiveResult>;
  /** Web-standard handler: Hono, Next.js route handlers, Bun, Deno, Workers. */
  fetch(request: Request): Promise<Response>;
  /**
   * `node:http` request listener: reads the raw body with the `maxBodyBytes` cap within
   * `bodyTimeoutMs` (default 10 s, then 408; docs/receiver.md, "Node server timeouts").
   */
  node(options?: NodeAdapterOptions): NodeHandler;
  /**
   * Drain a RabbitMQ queue through this receiver (verify → validate → claim → handler → done, then
   * ack); the queue needs `x-dead-letter-exchange` for dead-letters (docs/destinations.md, "Consuming").
   */
  consumeAmqp(channel: AmqpChannel, queue: string, options?: ConsumeOptions): Promise<Consumption>;
  /** Drain a JetStream pull consumer through this receiver (ack / nak / term per message). */
  consumeJetStream(consumer: JetStreamConsumer, options?: JetStreamConsumeOptions): Promise<Consumption>;
  /** ack-fast: start processing queued events in this process. */
  startWorker(): void;
  /** ack-fast: process every due queued event now, then return. */
  drain(): Promise<DrainResult>;
  /**
   * Stop the ack-fast worker and wait for events in progress; make one last attempt at each done
   * record still being retried in the background (see "Exactly-once, precisely" in docs/receiver.md).
   */
  stop(): Promise<void>;
  /**
   * Shutdown: stop taking queued events, wait up to `timeoutMs` (default 10 s) for handlers in
   * flight (inline and ack-fast), then abort their `event.signal` and release their claims and queue
   * rows for a retry; then `stop()`. Resolves with what became of them (docs/shutdown.md).
   */
  close(options?: StopOptions): Promise<StopResult>;
  /** Turn an error raised while reading the request (size cap, consumed body) into the answer. */
  reject(error: unknown): ReceiveResult;
  /** Largest accepted body in bytes (adapters enforce it while reading). */
  readonly maxBodyBytes: number;
  /** Phantom field carrying the event map for typed helpers. */
  readonly __events?: M;
  /** Phantom field carrying the handlers' `tx` type. */
  readonly __tx?: Tx;
}
