/**
 * `createReceiver(contract, options)`: the receive pipeline.
 *
 * raw body → verify signature (the scheme also checks the replay window) → decode JSON → envelope →
 * select the event → validate `data` (policy) → claim the event id → run the handler → mark done.
 * In ack-fast mode the event is queued durably after validation and answered at once; a worker runs
 * the same claim → handler → done steps later.
 */

import { nodeHandler } from '../adapters/node-http.js';
import { webHandler } from '../adapters/web.js';
import { bodyTooLarge, toBytes, toText } from '../bytes.js';
import type { Contract, EventMapBase, StandardSchemaV1 } from '../contract.js';
import { WebhookError } from '../errors.js';
import { getDescriptor } from '../presets/catalog.js';
import type { ProviderDescriptor } from '../presets/types.js';
import { createSignatureSchemeWeb, type SchemeFactory } from '../signing/resolve-web.js';
import type { HeadersInput, RawBody } from '../signing/scheme.js';
import {
  DEFAULT_LEASE_MS,
  DEFAULT_TTL_MS,
  type EventQueue,
  type IdempotencyStore,
  type QueuedEvent,
} from '../stores/types.js';
import { createDispatcher } from './dispatch.js';
import { errorResult, statusResult, toWebhookError } from './respond.js';
import type {
  CommonReceiverOptions,
  ErrorContext,
  ReceiveRequest,
  ReceiveResult,
  Receiver,
  ReceiverOptions,
  ValidationIssue,
  ValidationPolicy,
} from './types.js';
import { type Validated, validate } from './validate.js';
import { defaultBackoff, type QueuedOutcome, QueueWorker } from './worker.js';

/** Default body cap: 5 MiB (GitHub's largest payloads are capped at 25 MB; raise it if you need them). */
export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;

type AnyHandler = (event: HandlerEvent) => unknown;

interface HandlerEvent {
  readonly id: string;
  readonly type: string;
  readonly timestamp: Date | undefined;
  readonly data: unknown;
  readonly headers: Readonly<Record<string, string>>;
  readonly issues: readonly ValidationIssue[];
  readonly tx: unknown;
}

/** A handler event before it gets its `tx`; `headers` as the request gave them. */
interface EventParts {
  readonly id: string;
  readonly type: string;
  readonly timestamp: Date | undefined;
  readonly data: unknown;
  readonly headers: HeadersInput;
  readonly issues: readonly ValidationIssue[];
}

/**
 * The event a handler receives. Plain data properties only: an object literal with an accessor (a
 * lazy `headers`) costs V8 more to create than building the header record.
 */
function handlerEvent(parts: EventParts, tx: unknown): HandlerEvent {
  return {
    id: parts.id,
    type: parts.type,
    timestamp: parts.timestamp,
    data: parts.data,
    headers: headerRecord(parts.headers),
    issues: parts.issues,
    tx,
  };
}

/** What the ack-fast queue stores: the verified event before validation (re-validated by the worker). */
interface QueuedPayload {
  readonly v: 1;
  /** Contract event name, or null for an unknown type bound for the catch-all. */
  readonly event: string | null;
  readonly type: string;
  readonly id: string;
  readonly timestamp: number | null;
  readonly data: unknown;
  readonly dataPointer: string;
  readonly headers: Record<string, string>;
}

/**
 * Loose view of the options: the common ones as declared, the dedupe and handler unions flattened
 * (those only matter for type checking the caller).
 */
interface LooseOptions extends CommonReceiverOptions<EventMapBase> {
  readonly store?: IdempotencyStore<unknown>;
  readonly dedupe?: boolean;
  readonly transactional?: boolean;
  readonly handlers: { readonly [event: string]: AnyHandler | undefined };
  readonly unknownEvent?: 'ignore' | 'reject' | AnyHandler;
}

interface Checked {
  readonly data: unknown;
  readonly issues: readonly ValidationIssue[];
}

/** A handler's result needs awaiting only when it is a thenable (sync handlers pay no promise). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Lease-owner tokens: unique per claim across processes and restarts (a random UUID per receiver plus
 * a counter), without a random UUID per delivery.
 */
function ownerTokens(): () => string {
  // Drawn on first use: Workers forbid random values at module scope, where receivers are created.
  let prefix: string | undefined;
  let n = 0;
  return () => {
    prefix ??= `${globalThis.crypto.randomUUID()}.`;
    return prefix + (++n).toString(36);
  };
}

function headerRecord(headers: HeadersInput): Record<string, string> {
  const record: Record<string, string> = {};
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    (headers as Headers).forEach((value, name) => {
      record[name] = value;
    });
    return record;
  }
  const source = headers as Record<string, string | readonly string[] | undefined>;
  // Object.keys rather than Object.entries: no [name, value] array per header.
  for (const name of Object.keys(source)) {
    const value = source[name];
    if (value !== undefined)
      record[name.toLowerCase()] = typeof value === 'string' ? value : value.join(', ');
  }
  return record;
}

async function contentId(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>),
  );
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return `sha256:${hex}`;
}

function parseJson(bytes: Uint8Array): unknown {
  const text = toText(bytes);
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new WebhookError('invalid_body', 'The body is not valid JSON', { cause });
  }
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, 2000);
}

/** `schemes`: the Node entry passes node:crypto's `createSignatureScheme`; Web Crypto by default. */
export function createReceiver<M extends EventMapBase, Tx = undefined, T extends boolean = false>(
  contract: Contract<M>,
  options: ReceiverOptions<M, Tx, T>,
  schemes: SchemeFactory = createSignatureSchemeWeb,
): Receiver<M> {
  const o = options as unknown as LooseOptions;
  const now = o.now ?? Date.now;
  const leaseMs = o.leaseMs ?? DEFAULT_LEASE_MS;
  const maxBodyBytes = o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const token = o.token ?? ownerTokens();
  const provider: ProviderDescriptor | undefined =
    contract.signature.kind === 'preset' ? getDescriptor(contract.signature.preset) : undefined;
  const store = o.dedupe === false ? undefined : o.store;
  const ttlMs = o.ttlMs ?? store?.ttlMs ?? provider?.dedupeTtlMs ?? DEFAULT_TTL_MS;
  const unknownEvent = o.unknownEvent ?? 'ignore';
  const handlers = o.handlers ?? {};
  const queue = o.queue ?? store?.queue;
  // Providers with short deadlines (Slack 3 s, Discord) default to ack-fast when the store can queue
  // durably (SQLite, PostgreSQL, or an explicit `queue`); with one that cannot (Redis, memory) they stay
  // inline rather than refuse to start. A defaulted ack-fast runs its worker in this process, started on
  // the first queued event, so nothing waits on a `startWorker()` the user never called.
  const durableQueue = o.queue !== undefined || (store?.queue !== undefined && store.name !== 'memory');
  const autoWorker = o.mode === undefined && provider?.defaultMode === 'ack-fast' && durableQueue;
  const mode = o.mode ?? (autoWorker ? 'ack-fast' : 'inline');

  if (o.dedupe !== false && store === undefined) {
    throw new WebhookError(
      'invalid_config',
      'createReceiver needs an idempotency `store` (or `dedupe: false` to process every delivery, duplicates included)',
    );
  }
  if (o.transactional === true && store?.transaction === undefined) {
    throw new WebhookError(
      'invalid_config',
      `transactional: true needs a store with transactions (got ${store?.name})`,
    );
  }
  if (mode === 'ack-fast' && queue === undefined) {
    throw new WebhookError(
      'invalid_config',
      'ack-fast mode needs a durable queue: a SQLite/PostgreSQL store or `queue`',
    );
  }
  if (o.scheme === undefined && o.secret === undefined && contract.signature.kind !== 'none') {
    throw new WebhookError(
      'invalid_config',
      `createReceiver needs the signing \`secret\` of "${contract.name}"`,
    );
  }
  const scheme =
    o.scheme ??
    schemes(contract.signature, {
      ...(o.preset ?? {}),
      secret: (o.secret ?? []) as never,
      ...(o.tolerance === undefined ? {} : { tolerance: o.tolerance }),
      now,
    });
  const dispatch = createDispatcher(contract);
  const events = contract.events as { readonly [name: string]: { readonly schema: StandardSchemaV1 } };
  const keyOf = (id: string): string => `${contract.name}:${id}`;
  const retryAfter = String(Math.max(1, Math.ceil(leaseMs / 1000)));

  const report = (error: WebhookError, context: ErrorContext): void => {
    try {
      o.onError?.(error, context);
    } catch {
      // A failing log hook must not change the answer.
    }
  };

  const fail = (error: unknown, context: { id?: string; type?: string }): ReceiveResult => {
    const e = toWebhookError(error);
    const outcome = e.status >= 500 ? 'failed' : 'rejected';
    if (e.code === 'parsed_body' || e.code === 'body_consumed') console.error(`[gen-webhooks] ${e.message}`);
    report(e, { outcome, ...context });
    return errorResult(e, outcome, context);
  };

  const parseBody = (bytes: Uint8Array, headers: HeadersInput): unknown =>
    provider === undefined ? parseJson(bytes) : provider.parseBody(bytes, headers);

  /**
   * Validation per policy. Returns the event's data and issues, or throws `invalid_payload` (strict).
   * Synchronous for sync schemes (zod), so the hot path pays no promise for it.
   */
  const check = (
    name: string,
    data: unknown,
    pointer: string,
    ids: { id: string; type: string },
  ): Checked | Promise<Checked> => {
    const policy = o.validationByEvent?.[name] ?? o.validation ?? 'strict';
    const schema = events[name]?.schema;
    if (policy === 'off' || schema === undefined) return { data, issues: [] };
    const result = validate(schema, data, pointer);
    if (result instanceof Promise) return result.then((r) => checked(r, policy, name, data, pointer, ids));
    return checked(result, policy, name, data, pointer, ids);
  };

  const checked = (
    result: Validated,
    policy: ValidationPolicy,
    name: string,
    data: unknown,
    pointer: string,
    ids: { id: string; type: string },
  ): Checked => {
    if (result.ok) return { data: result.value, issues: [] };
    try {
      o.onValidationIssue?.({ ...ids, data }, result.issues);
    } catch {
      // A failing hook must not change the answer.
    }
    if (policy === 'strict') {
      throw new WebhookError('invalid_payload', `The "${name}" payload does not match the contract`, {
        details: { issues: result.issues, pointer },
      });
    }
    return { data, issues: result.issues };
  };

  /** Claim → handler → done (or the transactional equivalent). Never throws. */
  const run = async (event: EventParts, handler: AnyHandler): Promise<ReceiveResult> => {
    const ids = { id: event.id, type: event.type };
    const at = now();
    const key = keyOf(event.id);
    if (store === undefined) {
      try {
        const out = handler(handlerEvent(event, undefined));
        if (isThenable(out)) await out;
      } catch (cause) {
        return fail(new WebhookError('handler_failed', `Handler for "${event.type}" failed`, { cause }), ids);
      }
      return statusResult(200, 'processed', 'processed', ids);
    }
    if (o.transactional === true && store.transaction !== undefined) {
      let handlerError: { cause: unknown } | undefined;
      try {
        const result = await store.transaction(
          key,
          { leaseMs, ttlMs, now: at, token: token() },
          async (tx) => {
            try {
              return await handler(handlerEvent(event, tx));
            } catch (cause) {
              handlerError = { cause };
              throw cause;
            }
          },
        );
        if (result.status === 'duplicate') return statusResult(200, 'duplicate', 'already processed', ids);
        if (result.status === 'in_progress') return inProgress(ids);
        return statusResult(200, 'processed', 'processed', ids);
      } catch (error) {
        if (handlerError !== undefined) {
          return fail(
            new WebhookError('handler_failed', `Handler for "${event.type}" failed; rolled back`, {
              cause: handlerError.cause,
            }),
            ids,
          );
        }
        return fail(storeFailure(error), ids);
      }
    }
    const owner = token();
    let claim: 'claimed' | 'duplicate' | 'in_progress';
    try {
      claim = await store.claim(key, { leaseMs, now: at, token: owner });
    } catch (error) {
      return fail(storeFailure(error), ids);
    }
    if (claim === 'duplicate') return statusResult(200, 'duplicate', 'already processed', ids);
    if (claim === 'in_progress') return inProgress(ids);
    let out: unknown;
    try {
      out = handler(handlerEvent(event, undefined));
    } catch (cause) {
      return release(store, key, owner, ids, cause);
    }
    // A sync handler returns before any timer could fire: only a pending one needs its lease renewed.
    if (isThenable(out)) {
      const stopRenewal = renewWhileRunning(store, key, owner, ids);
      try {
        await out;
      } catch (cause) {
        stopRenewal();
        return release(store, key, owner, ids, cause);
      }
      stopRenewal();
    }
    try {
      await store.complete(key, { ttlMs, now: now() });
    } catch (error) {
      // The work is done: answer 2xx so the sender stops; the lease guards retries until it expires.
      report(storeFailure(error), { outcome: 'processed', ...ids });
    }
    return statusResult(200, 'processed', 'processed', ids);
  };

  /** The handler failed: give the claim back so the sender's retry processes the event again. */
  const release = async (
    s: IdempotencyStore<unknown>,
    key: string,
    owner: string,
    ids: { id: string; type: string },
    cause: unknown,
  ): Promise<ReceiveResult> => {
    try {
      await s.release(key, { token: owner });
    } catch (releaseError) {
      // The lease still expires on its own; the retry then processes the event.
      report(storeFailure(releaseError), { outcome: 'failed', ...ids });
    }
    return fail(new WebhookError('handler_failed', `Handler for "${ids.type}" failed`, { cause }), ids);
  };

  /**
   * Keeps the lease of a running handler alive (every leaseMs / 3), so a slow handler is not
   * overlapped by a retry; a crashed process stops renewing and its lease expires as designed.
   */
  const renewWhileRunning = (
    s: IdempotencyStore<unknown>,
    key: string,
    owner: string,
    ids: { id: string; type: string },
  ): (() => void) => {
    const extend = s.extend?.bind(s);
    if (extend === undefined) return () => {};
    let busy = false;
    const timer = setInterval(
      () => {
        if (busy) return;
        busy = true;
        extend(key, { leaseMs, now: now(), token: owner })
          .then((held) => {
            if (held) return;
            clearInterval(timer);
            report(
              new WebhookError(
                'in_progress',
                'The claim expired while the handler ran; a retry may run it again',
              ),
              { outcome: 'in_progress', ...ids },
            );
          })
          .catch((error: unknown) => report(storeFailure(error), { outcome: 'failed', ...ids }))
          .finally(() => {
            busy = false;
          });
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    // Never keep a process alive just to renew a lease.
    (timer as { unref?: () => void }).unref?.();
    return () => clearInterval(timer);
  };

  const inProgress = (ids: { id: string; type: string }): ReceiveResult =>
    errorResult(
      new WebhookError('in_progress', 'This event is being processed by another request; retry later'),
      'in_progress',
      { ...ids, headers: { 'retry-after': retryAfter } },
    );

  const storeFailure = (error: unknown): WebhookError =>
    error instanceof WebhookError
      ? error
      : new WebhookError('store_error', 'Idempotency store failed', { cause: error });

  const handlerFor = (name: string | undefined): AnyHandler | undefined => {
    if (name === undefined) return typeof unknownEvent === 'function' ? unknownEvent : undefined;
    return handlers[name];
  };

  const handle = async (request: ReceiveRequest): Promise<ReceiveResult> => {
    const context: { id?: string; type?: string } = {};
    try {
      const bytes = toBytes(request.body as RawBody);
      if (bytes.byteLength > maxBodyBytes) {
        throw bodyTooLarge(maxBodyBytes);
      }
      const url = request.url;
      const verifying = scheme.verify(
        url === undefined
          ? { headers: request.headers, body: bytes }
          : { headers: request.headers, body: bytes, url },
      );
      const verified = isThenable(verifying) ? await verifying : verifying;
      const body = parseBody(bytes, request.headers);
      const handshake = provider?.handshake(request.headers, body);
      if (handshake !== undefined) {
        return {
          status: handshake.status,
          headers: handshake.headers,
          body: handshake.body,
          outcome: 'processed',
        };
      }
      const x = dispatch(body, request.headers, verified);
      const id = provider?.eventId(request.headers, body, verified) ?? x.id ?? (await contentId(bytes));
      context.id = id;
      context.type = x.event ?? x.type;
      if (x.event === undefined && unknownEvent === 'reject') {
        throw new WebhookError('unknown_event', `Unknown event type "${x.type}"`, {
          details: { type: x.type },
        });
      }
      const handler = handlerFor(x.event);
      if (handler === undefined) return statusResult(200, 'ignored', 'ignored', context);
      let validated: Checked;
      if (x.event === undefined) validated = { data: x.data, issues: [] };
      else {
        const checking = check(x.event, x.data, x.dataPointer, { id, type: x.event });
        validated = checking instanceof Promise ? await checking : checking;
      }
      if (mode === 'ack-fast') {
        const headers = headerRecord(request.headers);
        const payload: QueuedPayload = {
          v: 1,
          event: x.event ?? null,
          type: x.event ?? x.type,
          id,
          timestamp: x.timestamp?.getTime() ?? null,
          data: x.data,
          dataPointer: x.dataPointer,
          headers,
        };
        await (queue as EventQueue)
          .enqueue(keyOf(id), JSON.stringify(payload), { now: now() })
          .catch((error) => {
            throw storeFailure(error);
          });
        if (autoWorker) worker?.start();
        worker?.wake();
        const ack = provider?.acknowledgement;
        if (ack !== undefined) {
          // The provider expects a specific answer to a queued event (Discord: an empty 204).
          return {
            status: ack.status,
            headers: { ...ack.headers },
            body: ack.body,
            outcome: 'queued',
            ...context,
          };
        }
        return statusResult(200, 'queued', 'queued', context);
      }
      return await run(
        {
          id,
          type: x.event ?? x.type,
          timestamp: x.timestamp,
          data: validated.data,
          headers: request.headers,
          issues: validated.issues,
        },
        handler,
      );
    } catch (error) {
      return fail(error, context);
    }
  };

  /** One queued event: same claim guard as inline; settles the queue row. */
  const processQueued = async (entry: QueuedEvent): Promise<QueuedOutcome> => {
    const q = queue as EventQueue;
    const maxAttempts = o.worker?.maxAttempts ?? 10;
    const backoff = o.worker?.backoff ?? defaultBackoff;
    let payload: QueuedPayload;
    try {
      payload = JSON.parse(entry.payload) as QueuedPayload;
    } catch (cause) {
      await q.fail(entry.seq, { error: errorText(cause) });
      return 'failed';
    }
    const ids = { id: payload.id, type: payload.type };
    let result: ReceiveResult;
    const handler = handlerFor(payload.event ?? undefined);
    if (handler === undefined) {
      // The handler was removed since the event was queued: nothing to run.
      result = statusResult(200, 'ignored', 'ignored', ids);
    } else {
      try {
        const { data, issues } =
          payload.event === null
            ? { data: payload.data, issues: [] }
            : await check(payload.event, payload.data, payload.dataPointer, ids);
        const timestamp = payload.timestamp === null ? undefined : new Date(payload.timestamp);
        result = await run({ ...ids, timestamp, data, headers: payload.headers, issues }, handler);
      } catch (error) {
        result = fail(error, ids);
      }
    }
    if (result.outcome === 'in_progress') {
      await q.retry(entry.seq, { availableAt: now() + leaseMs, error: 'in progress elsewhere' });
      return 'done';
    }
    if (result.outcome !== 'failed' && result.outcome !== 'rejected') {
      await q.ack(entry.seq);
      return 'done';
    }
    const error = errorText(result.error?.cause ?? result.error);
    // A payload that no longer validates will not get better with retries.
    if (result.outcome === 'rejected' || entry.attempts >= maxAttempts) await q.fail(entry.seq, { error });
    else await q.retry(entry.seq, { availableAt: now() + backoff(entry.attempts), error });
    return 'failed';
  };

  const worker =
    mode === 'ack-fast' && queue !== undefined
      ? new QueueWorker({
          queue,
          now,
          leaseMs,
          process: processQueued,
          onLoopError: (error) => report(storeFailure(error), { outcome: 'failed' }),
          options: o.worker ?? {},
        })
      : undefined;

  const requireWorker = (): QueueWorker => {
    if (worker === undefined)
      throw new WebhookError('invalid_config', 'The worker exists in ack-fast mode only');
    return worker;
  };

  const reject = (error: unknown): ReceiveResult => {
    return fail(error, {});
  };

  const receiver: Receiver<M> = {
    handle,
    reject,
    maxBodyBytes,
    fetch: (request: Request) => fetchHandler(request),
    node: () => nodeHandler(receiver),
    startWorker: () => requireWorker().start(),
    drain: () => requireWorker().drain(),
    stop: async () => {
      await worker?.stop();
    },
  };
  const fetchHandler = webHandler(receiver);
  return receiver;
}
