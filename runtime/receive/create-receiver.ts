/**
 * `createReceiver(contract, options)`: the receive pipeline.
 *
 * raw body → verify signature (the scheme also checks the replay window) → decode JSON → envelope →
 * select the event → validate `data` (policy) → claim the event id → run the handler → mark done.
 * In ack-fast mode the event is queued durably after validation and answered at once; a worker runs
 * the same claim → handler → done steps later.
 *
 * Assembled here from contract-rules.ts (through the parts), receiver-options.ts, receive-request.ts and
 * receiver-object.ts; the `hooks` and `tracing` observers wrap each delivery's steps.
 */

import type { Contract, EventMapBase, StandardSchemaV1 } from '../contract.js';
import { WebhookError } from '../errors.js';
import { checkKnownOptions } from '../known-options.js';
import { DEFAULT_LEASE_MS, DEFAULT_TTL_MS } from '../stores/types.js';
import type { AckFastMode } from './ack-fast-mode.js';
import { inlineCompletions } from './completion.js';
import { createDispatcher, unknownReporter } from './dispatch.js';
import { listeners as listenersOf, UNKNOWN } from './listeners.js';
import { consoleLogger, safeLog } from './observe.js';
import { type ReceiverParts, rulesFor } from './parts.js';
import { policyCheck } from './policy.js';
import { receivePipeline } from './receive-request.js';
import { RECEIVER_KEYS, RECEIVER_RENAMED } from './receiver-keys.js';
import { receiverObject } from './receiver-object.js';
import { checkOptions, type LooseOptions, observersOf, ownerTokens } from './receiver-options.js';
import { checkReplayTtl } from './replay-window.js';
import { errorResult, toWebhookError } from './respond.js';
import type { Ids, RunContext } from './run-context.js';
import { RunGate } from './run-gate.js';
import { plainRun } from './run-plain.js';
import { transactionalRun } from './run-transactional.js';
import { answersInProcess, storeWithDeadline } from './store-deadline.js';
import type {
  DeliverySteps,
  ErrorContext,
  HandlerTx,
  ReceiveResult,
  Receiver,
  ReceiverOptions,
} from './types.js';

/** Default body cap: 5 MiB (GitHub's largest payloads are capped at 25 MB; raise it if you need them). */
export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;

/** Retry-After of a 503 for an unavailable store: soon, the store may be back. */
const STORE_RETRY_AFTER = '5';

/**
 * `parts`: the scheme factory, provider rules and body decoder the contract needs (`parts.ts`); the
 * entries' `createReceiver` passes them all, a generated receiver only its contract's.
 */
export function createReceiverWith<M extends EventMapBase, Tx = undefined, T extends boolean = false>(
  contract: Contract<M>,
  options: ReceiverOptions<M, Tx, T>,
  parts: ReceiverParts,
): Receiver<M, HandlerTx<Tx, T>> {
  checkKnownOptions('createReceiver', options, RECEIVER_KEYS, RECEIVER_RENAMED);
  const o = options as unknown as LooseOptions;
  const now = o.now ?? Date.now;
  const leaseMs = o.leaseMs ?? DEFAULT_LEASE_MS;
  const token = o.token ?? ownerTokens();
  const store = o.dedupe === false ? undefined : o.store;
  const storeTimeoutMs = checkOptions(o, store);
  const rules = rulesFor(contract, o, parts, 'createReceiver', now);
  const ttlMs = o.ttlMs ?? store?.ttlMs ?? rules.ttlMs ?? DEFAULT_TTL_MS;
  // A processed id must outlive the window its signed timestamp is accepted in (replay-window.ts).
  if (store !== undefined) {
    const source =
      o.ttlMs !== undefined ? 'ttlMs' : store.ttlMs !== undefined ? "the store's ttlMs" : 'the default ttlMs';
    checkReplayTtl(contract, o, ttlMs, source);
  }
  const maxBodyBytes = o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const unknownEvent = o.unknownEvent ?? 'ignore';
  const listeners = listenersOf(o.handlers ?? {}, o.preHandle);
  // An `unknownEvent` function runs first, then the `onUnknown` option's handler.
  if (typeof unknownEvent === 'function') listeners.add(UNKNOWN, unknownEvent);
  if (o.onUnknown !== undefined) listeners.add(UNKNOWN, o.onUnknown);
  const logger = o.logger ?? consoleLogger;
  const hooks = o.hooks;
  const tracing = o.tracing;
  // Providers with short deadlines (Slack 3 s, Discord) default to ack-fast when the store can queue
  // durably (SQLite, PostgreSQL); with one that cannot (Redis, memory) they stay inline rather than
  // refuse to start. A defaulted ack-fast runs its worker in this process, started on the first queued
  // event, so nothing waits on a `startWorker()` the user never called. `ackFast: false` opts out.
  const autoWorker =
    o.ackFast === undefined &&
    rules.ackFastByDefault === true &&
    store?.queue !== undefined &&
    store.name !== 'memory' &&
    parts.ackFast !== undefined;
  const ackFast = (autoWorker ? parts.ackFast : o.ackFast || undefined) as AckFastMode | undefined;
  const handshakes = rules.handshakes();
  const dispatch = createDispatcher(contract, parts);
  const events = contract.events as { readonly [name: string]: { readonly schema: StandardSchemaV1 } };
  const keyOf = (id: string): string => `${contract.name}:${id}`;
  const retryAfter = String(Math.max(1, Math.ceil(leaseMs / 1000)));
  const storeRetry = { 'retry-after': STORE_RETRY_AFTER };

  const report = (error: WebhookError, context: ErrorContext): void => {
    try {
      o.onError?.(error, context);
    } catch {
      // A failing log hook must not change the answer.
    }
  };
  const reportUnknown = unknownReporter(contract.name, o.onError === undefined ? undefined : report);

  const fail = (error: unknown, context: { id?: string; type?: string }): ReceiveResult => {
    const e = toWebhookError(error);
    const outcome = e.status >= 500 ? 'failed' : 'rejected';
    // A failure is the operator's to fix (a misconfigured app, a failing handler or store): logged.
    if (e.status >= 500) safeLog(logger, 'error', { code: e.code, status: e.status, ...context }, e.message);
    report(e, { outcome, ...context });
    // An unavailable store is worth retrying soon (a timeout, a dropped connection).
    if (e.code === 'store_error') return errorResult(e, outcome, { ...context, headers: storeRetry });
    return errorResult(e, outcome, context);
  };

  const check = policyCheck(o, events, { logger, now });

  const inProgress = (ids: Ids): ReceiveResult =>
    errorResult(
      new WebhookError('in_progress', 'This event is being processed by another request; retry later'),
      'in_progress',
      { ...ids, headers: { 'retry-after': retryAfter } },
    );

  // Every store call the run paths make has a deadline (a partitioned store answers 503, not never).
  const gate = new RunGate();
  const bounded =
    store === undefined ? undefined : storeWithDeadline(store, answersInProcess(store) ? 0 : storeTimeoutMs);
  const ctx = {
    store: bounded,
    now,
    leaseMs,
    ttlMs,
    token,
    keyOf,
    report,
    fail,
    inProgress,
    storeTimeoutMs,
    signal: gate.signal,
    aborted: () => gate.aborted(),
  } as { -readonly [K in keyof RunContext]: RunContext[K] };
  // How a done record that failed to write is retried: the parts' choice (Node: in the background).
  const completions = (parts.completions ?? inlineCompletions)(ctx);
  ctx.completions = completions;
  /** Claim → handler → done, or the transactional equivalent. Never throws. */
  const untracked = o.transactional === true && store !== undefined ? transactionalRun(ctx) : plainRun(ctx);
  // Tracked so `receiver.close()` knows what is in flight (inline and ack-fast alike).
  const run: typeof untracked = (event, handler, onRun) => gate.track(untracked(event, handler, onRun));

  const handlerFor = listeners.handlerFor;
  const queued = ackFast?.build({
    ...ctx,
    store,
    run,
    handlerFor,
    check,
    hooks,
    tracing,
    autoStart: autoWorker,
    acknowledgement: rules.acknowledgement,
  });

  const scheme = rules.scheme;
  const steps: DeliverySteps = { verify: (input) => scheme.verify(input), check, run };
  const pipeline = (q: typeof queued) =>
    receivePipeline(
      o,
      rules,
      handshakes,
      dispatch,
      steps,
      observersOf(hooks, tracing),
      handlerFor,
      reportUnknown,
      q,
      fail,
      maxBodyBytes,
      unknownEvent,
      logger,
      parts.contentId,
    );
  const handle = pipeline(queued);
  return receiverObject(
    listeners,
    handle,
    fail,
    maxBodyBytes,
    parts,
    queued?.worker,
    completions,
    // Broker consumers run events inline, even where HTTP deliveries are queued (ack-fast).
    queued === undefined ? handle : pipeline(undefined),
    { gate, graceMs: Math.max(1000, storeTimeoutMs) },
  ) as Receiver<M, HandlerTx<Tx, T>>;
}
