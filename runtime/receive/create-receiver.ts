/**
 * `createReceiver(contract, options)`: the receive pipeline.
 *
 * raw body → verify signature (the scheme also checks the replay window) → decode JSON → envelope →
 * select the event → validate `data` (policy) → claim the event id → run the handler → mark done.
 * In ack-fast mode the event is queued durably after validation and answered at once; a worker runs
 * the same claim → handler → done steps later.
 */

import { webHandler } from '../adapters/web.js';
import { bodyTooLarge, toBytes } from '../bytes.js';
import type { Contract, EventMapBase, StandardSchemaV1 } from '../contract.js';
import { WebhookError } from '../errors.js';
import type { DeliverySpan } from '../otel/types.js';
import type { HandshakeResponse, ProviderDescriptor } from '../presets/types.js';
import type { RawBody, Secret } from '../signing/scheme.js';
import { keyList } from '../signing/verification-key.js';
import { DEFAULT_LEASE_MS, DEFAULT_TTL_MS, type IdempotencyStore } from '../stores/types.js';
import type { AckFastMode } from './ack-fast-mode.js';
import { Completions } from './completion.js';
import type { ContractHandshakes } from './contract-handshakes.js';
import { createDispatcher, unknownReporter } from './dispatch.js';
import { type AnyHandler, isThenable } from './handler-event.js';
import { Listeners } from './listeners.js';
import { consoleLogger, elapsed, reportResult, safeLog, safely } from './observe.js';
import { bodyParser, contentId, providerOf, type ReceiverParts, verifierFor } from './parts.js';
import { type Checked, policyCheck } from './policy.js';
import { errorResult, statusResult, toWebhookError } from './respond.js';
import type { Ids, RunContext } from './run-context.js';
import { plainRun } from './run-plain.js';
import { transactionalRun } from './run-transactional.js';
import { answersInProcess, DEFAULT_STORE_TIMEOUT_MS, storeWithDeadline } from './store-deadline.js';
import { endSpan, inPhase, phaseOf, tracedHandler } from './trace-phases.js';
import type {
  CommonReceiverOptions,
  ErrorContext,
  HandlerTx,
  ReceiveRequest,
  ReceiveResult,
  Receiver,
  ReceiverOptions,
} from './types.js';
import { verificationAnswer } from './verification-event.js';

/** Default body cap: 5 MiB (GitHub's largest payloads are capped at 25 MB; raise it if you need them). */
export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;

/** Retry-After of a 503 for an unavailable store: soon, the store may be back. */
const STORE_RETRY_AFTER = '5';

/**
 * Loose view of the options: the common ones as declared, the dedupe and handler unions flattened
 * (those only matter for type checking the caller).
 */
interface LooseOptions extends CommonReceiverOptions<EventMapBase> {
  readonly store?: IdempotencyStore<unknown>;
  readonly dedupe?: boolean;
  readonly transactional?: boolean;
  readonly handlers?: { readonly [event: string]: AnyHandler | undefined };
  readonly unknownEvent?: 'ignore' | 'reject' | AnyHandler;
  readonly onUnknown?: AnyHandler;
  readonly preHandle?: AnyHandler;
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

/** A provider handshake's answer: sent as is, nothing dispatched or claimed. */
function handshakeResult(answer: HandshakeResponse): ReceiveResult {
  return { status: answer.status, headers: answer.headers, body: answer.body, outcome: 'processed' };
}

/**
 * `parts`: the scheme factory, provider rules and body decoder the contract needs (`parts.ts`); the
 * entries' `createReceiver` passes them all, a generated receiver only its contract's.
 */
export function createReceiverWith<M extends EventMapBase, Tx = undefined, T extends boolean = false>(
  contract: Contract<M>,
  options: ReceiverOptions<M, Tx, T>,
  parts: ReceiverParts,
): Receiver<M, HandlerTx<Tx, T>> {
  const o = options as unknown as LooseOptions;
  const now = o.now ?? Date.now;
  const leaseMs = o.leaseMs ?? DEFAULT_LEASE_MS;
  const maxBodyBytes = o.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const token = o.token ?? ownerTokens();
  const provider: ProviderDescriptor | undefined = providerOf(contract, parts);
  const store = o.dedupe === false ? undefined : o.store;
  const ttlMs = o.ttlMs ?? store?.ttlMs ?? provider?.dedupeTtlMs ?? DEFAULT_TTL_MS;
  const unknownEvent = o.unknownEvent ?? 'ignore';
  const listeners = new Listeners({
    handlers: o.handlers ?? {},
    unknownHandler: typeof unknownEvent === 'function' ? unknownEvent : o.onUnknown,
    preHandle: o.preHandle,
  });
  if (typeof unknownEvent === 'function' && o.onUnknown !== undefined) listeners.onUnknown(o.onUnknown);
  const logger = o.logger ?? consoleLogger;
  const hooks = o.hooks;
  const tracing = o.tracing;
  // Providers with short deadlines (Slack 3 s, Discord) default to ack-fast when the store can queue
  // durably (SQLite, PostgreSQL); with one that cannot (Redis, memory) they stay inline rather than
  // refuse to start. A defaulted ack-fast runs its worker in this process, started on the first queued
  // event, so nothing waits on a `startWorker()` the user never called. `ackFast: false` opts out.
  const autoWorker =
    o.ackFast === undefined &&
    provider?.defaultMode === 'ack-fast' &&
    store?.queue !== undefined &&
    store.name !== 'memory' &&
    parts.ackFast !== undefined;
  const ackFast = (autoWorker ? parts.ackFast : o.ackFast || undefined) as AckFastMode | undefined;
  const legacy = o as { mode?: unknown; queue?: unknown; worker?: unknown };
  if (legacy.mode !== undefined || legacy.queue !== undefined || legacy.worker !== undefined) {
    throw new WebhookError(
      'invalid_config',
      'mode, queue and worker are now ackFast: ackFastQueue({ queue, worker }) (or ackFast: false for inline)',
    );
  }
  const storeTimeoutMs = o.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  if (!(storeTimeoutMs >= 0)) {
    throw new WebhookError(
      'invalid_config',
      `storeTimeoutMs must be a number of ms >= 0 (got ${storeTimeoutMs})`,
    );
  }

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
  // presetOptions are also handed to the preset's handshakes (Zoom answers with an HMAC; Twitch and
  // Graph call hooks).
  const { scheme, presetOptions } = verifierFor(contract, o, parts, 'createReceiver', now);
  // A preset answers its provider's handshakes; any other contract answers the ones it declares and
  // the sender's endpoint verification event (unless it declares an event of that name itself).
  const verificationEvent = !Object.hasOwn(contract.events, 'webhook.verification');
  const declared = contract.handshakes ?? [];
  if (provider === undefined && declared.length > 0 && parts.handshakes === undefined) {
    throw new WebhookError(
      'invalid_config',
      `"${contract.name}" declares handshakes: its parts need contractHandshakes`,
    );
  }
  // One shape for both: `before` answers unsigned handshakes, `after` signed ones (after verify).
  const preflight = provider?.preflight;
  const handshakes: ContractHandshakes | undefined =
    provider !== undefined
      ? {
          ...(preflight === undefined ? {} : { before: async (r) => preflight(r, presetOptions) }),
          after: (r, body) => provider.handshake(r.headers, body, presetOptions),
        }
      : declared.length > 0 && parts.handshakes !== undefined
        ? parts.handshakes(declared, keyList(o.secret as Secret | readonly Secret[] | undefined), {
            verificationEvent,
            verifyToken: o.verifyToken,
          })
        : verificationEvent
          ? { after: (_r, body) => verificationAnswer(body) }
          : undefined;
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

  const parseBody = bodyParser(contract, parts, provider);

  const check = policyCheck(o, events);

  const inProgress = (ids: Ids): ReceiveResult =>
    errorResult(
      new WebhookError('in_progress', 'This event is being processed by another request; retry later'),
      'in_progress',
      { ...ids, headers: { 'retry-after': retryAfter } },
    );

  // Every store call the run paths make has a deadline (a partitioned store answers 503, not never).
  const bounded =
    store === undefined ? undefined : storeWithDeadline(store, answersInProcess(store) ? 0 : storeTimeoutMs);
  const completions = new Completions({
    store: bounded,
    now,
    leaseMs,
    ttlMs,
    report,
  });
  const ctx: RunContext = {
    store: bounded,
    now,
    leaseMs,
    ttlMs,
    token,
    keyOf,
    report,
    fail,
    inProgress,
    completions,
  };
  /** Claim → handler → done, or the transactional equivalent. Never throws. */
  const run = o.transactional === true && store !== undefined ? transactionalRun(ctx) : plainRun(ctx);

  const handlerFor = (name: string | undefined): AnyHandler | undefined => listeners.handlerFor(name);
  const queued = ackFast?.build({
    store,
    storeTimeoutMs,
    now,
    leaseMs,
    keyOf,
    run,
    handlerFor,
    check,
    fail,
    report: (error) => report(error, { outcome: 'failed' }),
    hooks,
    tracing,
  });
  if (ackFast !== undefined && queued === undefined) {
    throw new WebhookError(
      'invalid_config',
      'ack-fast needs a durable queue: a SQLite/PostgreSQL store or `queue`',
    );
  }

  const receive = async (request: ReceiveRequest, span: DeliverySpan | undefined): Promise<ReceiveResult> => {
    const context: { id?: string; type?: string } = {};
    try {
      const bytes = toBytes(request.body as RawBody);
      if (bytes.byteLength > maxBodyBytes) {
        throw bodyTooLarge(maxBodyBytes);
      }
      const url = request.url;
      const asked = { method: request.method, url, headers: request.headers, body: bytes };
      // Unsigned handshakes (Meta GET, Graph validationToken, Okta GET, CloudEvents OPTIONS): answered
      // before verification and before dedupe; the preset or contract checks what the provider sends.
      if (handshakes?.before !== undefined) {
        const early = await handshakes.before(asked);
        if (early !== undefined) return handshakeResult(early);
      }
      const verifyStarted = hooks?.verified === undefined ? 0 : performance.now();
      const verifying = inPhase(span, 'verify', () =>
        scheme.verify(url === undefined ? { headers: request.headers, body: bytes } : { ...asked, url }),
      );
      const verified = isThenable(verifying) ? await verifying : verifying;
      if (hooks?.verified !== undefined) safely(hooks.verified, { durationMs: elapsed(verifyStarted) });
      const body = parseBody(bytes, request.headers);
      const answering = handshakes?.after(asked, body);
      const answer = isThenable(answering) ? await answering : answering;
      if (answer !== undefined) return handshakeResult(answer);
      const x = dispatch(body, request.headers, verified);
      const id = provider?.eventId(request.headers, body, verified) ?? x.id ?? (await contentId(bytes));
      context.id = id;
      context.type = x.event ?? x.type;
      span?.setAttributes({
        'webhook.id': id,
        'webhook.type': context.type,
        ...(x.event === undefined ? { 'webhook.unknown': true } : {}),
      });
      if (x.event === undefined && unknownEvent === 'reject') {
        throw new WebhookError('unknown_event', `Unknown event type "${x.type}"`, {
          details: { type: x.type },
        });
      }
      const handler = handlerFor(x.event);
      if (handler === undefined) {
        // A verified delivery of a type the contract does not know never vanishes silently: it
        // reaches onError when one is set, a given logger, else the console once per type.
        if (x.event === undefined) {
          if (o.onError !== undefined || o.logger === undefined) reportUnknown(x, context);
          else
            safeLog(
              logger,
              'warn',
              { id, type: x.type },
              `Ignored a verified webhook of unknown type "${x.type}" (no onUnknown handler)`,
            );
        }
        return statusResult(200, 'ignored', 'ignored', context);
      }
      const event = x.event;
      const checking: Checked | Promise<Checked> =
        event === undefined
          ? { data: x.data, issues: [] }
          : inPhase(span, 'validate', () => check(event, x.data, x.dataPointer, { id, type: event }));
      const validated = isThenable(checking) ? await checking : checking;
      if (queued !== undefined) {
        await queued.enqueue(x, id, request.headers);
        if (autoWorker) queued.worker.start();
        queued.worker.wake();
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
      const parts = {
        id,
        type: x.event ?? x.type,
        timestamp: x.timestamp,
        data: validated.data,
        headers: request.headers,
        issues: validated.issues,
      };
      if (span === undefined) return await run(parts, handler);
      const endClaim = phaseOf(span, 'claim');
      const result = await run(parts, tracedHandler(handler, span), () => endClaim());
      endClaim();
      return result;
    } catch (error) {
      return fail(error, context);
    }
  };

  const handle = async (request: ReceiveRequest): Promise<ReceiveResult> => {
    if (hooks === undefined && tracing === undefined) return receive(request, undefined);
    const started = performance.now();
    if (hooks?.received !== undefined) {
      safely(hooks.received, {
        ...(request.method === undefined ? {} : { method: request.method }),
        ...(request.url === undefined ? {} : { url: request.url }),
      });
    }
    let span: DeliverySpan | undefined;
    try {
      span = tracing?.startDelivery(request.headers);
    } catch {
      // A broken tracer must not change the answer.
    }
    const result = await receive(request, span);
    if (hooks !== undefined) reportResult(hooks, result, started);
    endSpan(span, result);
    return result;
  };

  const worker = queued?.worker;
  const requireWorker = (): NonNullable<typeof worker> => {
    if (worker === undefined)
      throw new WebhookError('invalid_config', 'The worker exists in ack-fast mode only');
    return worker;
  };

  const reject = (error: unknown): ReceiveResult => {
    return fail(error, {});
  };

  const receiver = {
    on(name: string, handler: AnyHandler) {
      listeners.on(name, handler);
      return receiver;
    },
    onAny(handler: AnyHandler) {
      listeners.onAny(handler);
      return receiver;
    },
    onUnknown(handler: AnyHandler) {
      listeners.onUnknown(handler);
      return receiver;
    },
    handle,
    reject,
    maxBodyBytes,
    fetch: (request: Request) => fetchHandler(request),
    node: () => {
      if (parts.node === undefined) {
        throw new WebhookError('invalid_config', 'receiver.node() is on Node only (use receiver.fetch)');
      }
      return parts.node(receiver);
    },
    startWorker: () => requireWorker().start(),
    drain: () => requireWorker().drain(),
    stop: async () => {
      await worker?.stop();
      await completions.stop();
    },
  } as unknown as Receiver<M, HandlerTx<Tx, T>>;
  const fetchHandler = webHandler(receiver);
  return receiver;
}
