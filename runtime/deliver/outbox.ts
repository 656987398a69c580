/**
 * The outbox: the durable state of the sender. Two implementations (SQLite, PostgreSQL) share this
 * interface; the sender writes messages + deliveries, workers claim and complete deliveries, the
 * management API edits endpoints. Times are milliseconds since the epoch.
 */
import type { PruneOutboxOptions, PruneOutboxResult } from './prune-types.js';
import type { Tenancy } from './tenant.js';

export interface EndpointSecret {
  readonly secret: string;
  readonly createdAt: number;
  /** After this time the secret no longer signs (set on the old secret by a rotation). */
  readonly expiresAt?: number;
}

/** `unverified`: registered with endpoint verification on, and not (yet) verified. */
export type DisabledReason = 'gone' | 'consecutive_failures' | 'manual' | 'unverified';

/**
 * Narrows a call to one tenant's endpoints (and their deliveries and attempts): another tenant's rows
 * are not found. Omitted, the call sees every tenant (workers, operators' own tooling).
 */
export interface TenantScope {
  readonly tenant?: string;
}

export interface Endpoint {
  readonly id: string;
  /** The customer or application the endpoint belongs to; it receives only this tenant's sends. */
  readonly tenant: string;
  readonly url: string;
  /** Subscribed event names; `*` subscribes to every event. */
  readonly events: readonly string[];
  readonly secrets: readonly EndpointSecret[];
  readonly enabled: boolean;
  readonly disabledReason?: DisabledReason;
  /**
   * When the endpoint last acknowledged endpoint verification at its current `url`; unset = never
   * (created with verification off, or the URL changed since). A disable keeps it, a new URL clears
   * it. With verification on, the manager enables only endpoints that have it.
   */
  readonly verifiedAt?: number;
  readonly consecutiveFailures: number;
  /**
   * When the current failure streak's first failed attempt started (ms since the epoch); unset while
   * the last attempt succeeded. The streak disables the endpoint only once it is the worker's
   * `disableAfterFailingForMs` old.
   */
  readonly failingSince?: number;
  /** Deliveries per second to this endpoint (across all workers); unset = the worker default. */
  readonly rateLimit?: number;
  readonly description?: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface NewEndpoint {
  readonly id?: string;
  /** Required by a multi-tenant outbox; a single-tenant one defaults it to `DEFAULT_TENANT`. */
  readonly tenant?: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly secret: string;
  readonly rateLimit?: number;
  readonly description?: string;
  /** When the URL acknowledged verification (before the endpoint was created). */
  readonly verifiedAt?: number;
}

/** Changes to an endpoint; omitted fields stay, `null` clears an optional one. */
export interface EndpointPatch {
  readonly url?: string;
  readonly events?: readonly string[];
  readonly description?: string | null;
  readonly rateLimit?: number | null;
  /**
   * The endpoint acknowledged verification at `url` at `at`: recorded only if `url` is its URL after
   * the patch (a URL changed meanwhile stays unverified). A new `url` without it clears `verifiedAt`.
   */
  readonly verified?: { readonly url: string; readonly at: number };
}

export type DeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'dead';

export interface Delivery {
  readonly id: string;
  readonly messageId: string;
  readonly endpointId: string;
  readonly eventType: string;
  readonly status: DeliveryStatus;
  /** Attempts started so far (a claim counts as an attempt, so a crash mid-attempt is not free). */
  readonly attempts: number;
  readonly nextAttemptAt: number;
  readonly leaseOwner?: string;
  readonly leaseUntil?: number;
  readonly lastError?: string;
  /** The send's ordering key (see `SendOptions.orderingKey`). */
  readonly orderingKey?: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** When the delivery succeeded or was dead-lettered. */
  readonly finishedAt?: number;
}

export interface AttemptRecord {
  readonly id: string;
  readonly deliveryId: string;
  readonly messageId: string;
  readonly endpointId: string;
  /** 1-based attempt number of the delivery. */
  readonly attempt: number;
  readonly startedAt: number;
  readonly durationMs: number;
  readonly statusCode?: number;
  /** `WebhookError` code of a failed attempt (`timeout`, `http_error`, …). */
  readonly errorCode?: string;
  readonly error?: string;
  /** First ≤ 1 KiB of the response body. */
  readonly responseSnippet?: string;
  readonly outcome: 'succeeded' | 'failed';
}

export interface NewMessage {
  readonly id: string;
  readonly eventType: string;
  /** The exact JSON body sent (signatures cover these bytes). */
  readonly body: string;
  /** Extra request headers (e.g. an event-type header for header-selected contracts). */
  readonly headers: Readonly<Record<string, string>>;
  readonly createdAt: number;
}

export interface EnqueueOptions {
  /**
   * Fan out to this tenant's subscribed endpoints only. Required by a multi-tenant outbox; a
   * single-tenant one defaults it to `DEFAULT_TENANT`. Never a broadcast over tenants.
   */
  readonly tenant?: string;
  /** Only these endpoints (still subject to their subscriptions). */
  readonly endpointIds?: readonly string[];
  /** A driver-specific transaction handle (pg client inside BEGIN, or the better-sqlite3 db). */
  readonly tx?: unknown;
  /** Deliveries with the same key to the same endpoint are attempted one at a time, in send order. */
  readonly orderingKey?: string;
}

export interface EnqueueResult {
  readonly messageId: string;
  readonly deliveryIds: readonly string[];
}

/** A claimed delivery with everything a worker needs to make the attempt. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly messageId: string;
  readonly eventType: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The attempt number this claim is (1-based). */
  readonly attempt: number;
  readonly leaseOwner: string;
  /** When the lease ends (claim time + `leaseMs`): another worker may take the delivery from then on. */
  readonly leaseUntil: number;
  readonly messageCreatedAt: number;
  readonly endpoint: Endpoint;
}

export interface ClaimOptions {
  readonly owner: string;
  readonly now: number;
  readonly leaseMs: number;
  readonly limit: number;
  /** Endpoints this worker cannot take more work for right now (local concurrency). */
  readonly excludeEndpointIds?: readonly string[];
  /** Most deliveries of one endpoint in one claim. */
  readonly perEndpointLimit?: number;
  /** Deliveries/second for endpoints without their own `rateLimit`; unset = unlimited. */
  readonly defaultRateLimit?: number;
}

/** What happened to a claimed attempt. */
export type AttemptResolution =
  | { readonly kind: 'succeeded' }
  | { readonly kind: 'retry'; readonly nextAttemptAt: number; readonly error: string }
  | { readonly kind: 'dead'; readonly error: string };

export interface CompleteInput {
  readonly delivery: ClaimedDelivery;
  readonly now: number;
  readonly attempt: Omit<AttemptRecord, 'id' | 'deliveryId' | 'messageId' | 'endpointId' | 'attempt'>;
  readonly resolution: AttemptResolution;
  /** Disable the endpoint now (410 Gone). */
  readonly disable?: DisabledReason;
  /** Disable after this many consecutive failed attempts (counter is reset by a success). */
  readonly disableAfterFailures?: number;
  /** …and only once the first of them is at least this old (ms; 0 or unset: the count alone). */
  readonly disableAfterFailingForMs?: number;
}

export interface CompleteResult {
  /** False when the lease was lost (another worker took over); nothing was written. */
  readonly applied: boolean;
  /** Set when this completion disabled the endpoint. */
  readonly disabled?: { readonly endpoint: Endpoint; readonly reason: DisabledReason };
}

export type RedeliverTarget =
  | { readonly messageId: string; readonly endpointId?: string }
  | { readonly deliveryId: string }
  | { readonly endpointId: string; readonly from?: number; readonly to?: number };

export interface ListDeliveriesOptions extends TenantScope {
  readonly endpointId?: string;
  readonly messageId?: string;
  readonly status?: DeliveryStatus;
  readonly limit?: number;
}

/** Tables, indexes and migrations; what the outbox opened itself. */
export interface OutboxSchema {
  readonly kind: 'sqlite' | 'postgres';
  /** `multi`: every send and endpoint names its tenant; `single` (default): a missing one is `DEFAULT_TENANT`. */
  readonly tenancy: Tenancy;
  /** Creates the tables and indexes if missing (idempotent). Every other method calls it first. */
  init(): Promise<void>;
  /** Closes what the outbox opened itself (a database opened from a path); never the user's driver. */
  close(): Promise<void>;
}

/** The endpoints deliveries fan out to, with their secrets and health. */
export interface EndpointRegistry {
  createEndpoint(input: NewEndpoint, now: number): Promise<Endpoint>;
  getEndpoint(id: string, scope?: TenantScope): Promise<Endpoint | undefined>;
  listEndpoints(scope?: TenantScope): Promise<Endpoint[]>;
  /** Changes url, events, description or rate limit; deliveries already enqueued stay. */
  updateEndpoint(
    id: string,
    patch: EndpointPatch,
    now: number,
    scope?: TenantScope,
  ): Promise<Endpoint | undefined>;
  /** Deletes the endpoint with its deliveries and attempts. */
  deleteEndpoint(id: string, scope?: TenantScope): Promise<boolean>;
  /** Adds `secret` and makes every other unexpired secret expire at `overlapUntil`. */
  rotateSecret(
    id: string,
    secret: string,
    now: number,
    overlapUntil: number,
    scope?: TenantScope,
  ): Promise<Endpoint | undefined>;
  /**
   * Enables, resets the failure counter, and makes its pending deliveries due now. Checks no
   * verification: `EndpointManager.enable` does, before it calls this.
   */
  enableEndpoint(id: string, now: number, scope?: TenantScope): Promise<Endpoint | undefined>;
  /** Disables with `reason` (replacing any earlier one); `verifiedAt` stays as it is. */
  disableEndpoint(
    id: string,
    reason: DisabledReason,
    now: number,
    scope?: TenantScope,
  ): Promise<Endpoint | undefined>;
}

/** Messages and their deliveries: enqueue, lease, give back, redeliver, read. */
export interface DeliveryQueue {
  /** Inserts the message and one pending delivery per subscribed endpoint (atomically). */
  enqueue(message: NewMessage, options?: EnqueueOptions): Promise<EnqueueResult>;
  /** Leases due deliveries of enabled endpoints (expired leases included). */
  claim(options: ClaimOptions): Promise<ClaimedDelivery[]>;
  /** Gives back a claimed delivery without counting the attempt (the worker could not start it). */
  release(delivery: ClaimedDelivery, now: number): Promise<void>;
  /** Makes finished (succeeded or dead) deliveries pending again with a fresh attempt budget. */
  redeliver(target: RedeliverTarget, now: number, scope?: TenantScope): Promise<number>;
  getDelivery(id: string, scope?: TenantScope): Promise<Delivery | undefined>;
  listDeliveries(options?: ListDeliveriesOptions): Promise<Delivery[]>;
  /** Earliest `next_attempt_at` of pending deliveries of enabled endpoints (for schedulers and tests). */
  nextDueAt(): Promise<number | undefined>;
}

/** Attempts: a claimed attempt's verdict, and the history of attempts. */
export interface AttemptLog {
  /** Records the attempt and moves the delivery on, only if `delivery.leaseOwner` still holds it. */
  complete(input: CompleteInput): Promise<CompleteResult>;
  listAttempts(options: {
    deliveryId?: string;
    endpointId?: string;
    limit?: number;
    tenant?: string;
  }): Promise<AttemptRecord[]>;
}

/** The whole outbox: every job, on one database. */
/** Deletes finished history in bounded batches (`startRetention` runs it on a schedule; docs/retention.md). */
export interface OutboxRetention {
  prune(options: Omit<PruneOutboxOptions, 'tables'>): Promise<PruneOutboxResult>;
}

/**
 * Portal sessions ended before their expiry (sign-out): the session token is stateless, so the only
 * way to end it early is a record every portal instance on this database checks.
 */
export interface SessionRevocations {
  /** Records `sessionId` as ended until `expiresAt` (its token's expiry); prunes expired records. */
  revokeSession(sessionId: string, expiresAt: number, now: number): Promise<void>;
  /** Whether `sessionId` was revoked and its record has not expired by `now`. */
  isSessionRevoked(sessionId: string, now: number): Promise<boolean>;
}

export interface Outbox
  extends OutboxSchema,
    EndpointRegistry,
    DeliveryQueue,
    AttemptLog,
    OutboxRetention,
    SessionRevocations {}
