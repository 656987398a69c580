/**
 * The delivery worker: claims due deliveries from the outbox under a lease, makes the attempt, and
 * records the verdict — success, retry on the contract's schedule (honouring a clamped
 * `Retry-After`), or the dead-letter queue after the last attempt. It also keeps endpoint health:
 * 410 disables at once, N consecutive failures disable and call `onEndpointDisabled`.
 *
 * Delivery is at-least-once: a crash after the receiver processed a request but before the verdict
 * was stored repeats the attempt (receivers dedupe on the message id). Ordering is promised only per
 * ordering key and endpoint (the claim takes a key's head only; see docs/sender.md).
 */
import { setMaxListeners } from 'node:events';
import { DEFAULT_SCHEDULE } from '../backoff.js';
import { DEFAULT_TIMEOUT_MS } from '../classify.js';
import { WebhookError } from '../errors.js';
import { checkKnownOptions } from '../known-options.js';
import {
  type StopOptions,
  type StopResult,
  settledWithin,
  shutdownReason,
  stopTimeout,
} from '../shutdown.js';
import { DestinationPool } from './destinations/pool.js';
import { createAgents } from './http-attempt.js';
import type { AttemptResolution, ClaimedDelivery } from './outbox.js';
import { SchemeCache, TargetCache } from './perform-attempt.js';
import { randomId } from './random-id.js';
import { compileUrlPolicy } from './url-policy.js';
import { createDeliver } from './worker-deliver.js';
import { checkRetryKeys, URL_POLICY_KEYS, WORKER_KEYS } from './worker-keys.js';
import type { DeliveryWorker, DeliveryWorkerOptions } from './worker-options.js';
import { ClaimedQueue } from './worker-queue.js';

export type {
  AttemptEvent,
  DeadLetterThresholdEvent,
  DeliveryWorker,
  DeliveryWorkerOptions,
  RunSummary,
} from './worker-options.js';

/** An endpoint failing for 5 days without a success is disabled (with enough failures). */
const DISABLE_AFTER_FAILING_FOR_MS = 5 * 24 * 60 * 60 * 1000;

/**
 * Deliveries a worker holds (in flight + claimed ahead), in multiples of its concurrency, and per
 * endpoint in multiples of its cap: a full worker has two rounds queued behind the one in flight, so
 * each claim can take a whole round (fewer, larger claims: each costs one commit) while another
 * round covers the claim's round trip. The last queued delivery of a slow endpoint starts after two
 * attempts at most, hence the default lease of three attempts.
 */
const HOLD = 3;

const positiveInt = (value: number | undefined, fallback: number, name: string): number => {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1)
    throw new WebhookError('invalid_config', `${name} must be a positive integer`);
  return v;
};

export function createWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  checkKnownOptions('createWorker', options, WORKER_KEYS);
  checkKnownOptions('createWorker', options.urlPolicy, URL_POLICY_KEYS, undefined, 'urlPolicy');
  checkRetryKeys('createWorker', options.retry);
  const { outbox } = options;
  const id = options.id ?? randomId('wrk');
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const rng = options.rng ?? Math.random;
  const signature = options.signature ?? options.contract?.signature ?? { kind: 'standard-webhooks' };
  const retry = options.retry ?? options.contract?.retry ?? DEFAULT_SCHEDULE;
  const concurrency = positiveInt(options.concurrency, 16, 'concurrency');
  const perEndpoint = positiveInt(options.perEndpointConcurrency, concurrency, 'perEndpointConcurrency');
  const timeoutMs = positiveInt(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
  const leaseMs = positiveInt(options.leaseMs, Math.max(30_000, HOLD * timeoutMs + 5000), 'leaseMs');
  if (leaseMs <= timeoutMs) {
    // A lease shorter than an attempt would let a second worker start the same attempt concurrently.
    throw new WebhookError(
      'invalid_config',
      `leaseMs (${leaseMs}) must be greater than timeoutMs (${timeoutMs})`,
    );
  }
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const disableAfterFailures = options.disableAfterFailures ?? 50;
  const disableAfterFailingForMs = options.disableAfterFailingForMs ?? DISABLE_AFTER_FAILING_FOR_MS;
  if (!Number.isFinite(disableAfterFailingForMs) || disableAfterFailingForMs < 0) {
    throw new WebhookError('invalid_config', 'disableAfterFailingForMs must be a non-negative number of ms');
  }
  const policy = compileUrlPolicy(options.urlPolicy);
  const ownsAgents = options.agents === undefined;
  let agents = options.agents ?? createAgents({ maxSockets: Math.max(concurrency, 16) });
  /** Aborted at the deadline of `stop()`; a new one per stop, so a restarted worker attempts again. */
  let shutdown = shutdownController();
  /** The tally of the `stop()` under way: what the deliveries in flight at its start became. */
  let stopping: { drained: number; released: number } | undefined;
  const onError = options.onError ?? ((error: unknown) => console.error('gen-webhooks worker:', error));
  const destinations =
    options.destinations === undefined ? undefined : new DestinationPool(options.destinations);
  const deliver = createDeliver({
    options,
    outbox,
    signature,
    retry,
    timeoutMs,
    disableAfterFailures,
    disableAfterFailingForMs,
    deadLetterThreshold:
      options.onDeadLetterThreshold === undefined
        ? undefined
        : positiveInt(options.deadLetterThreshold, 1, 'deadLetterThreshold'),
    policy,
    agents: () => agents,
    signal: () => shutdown.signal,
    schemes: new SchemeCache(),
    targets: new TargetCache(options.dnsCacheMs ?? 30_000),
    ...(destinations ? { destinations } : {}),
    clamp: {
      rng,
      ...(options.minRetryAfterMs !== undefined ? { minRetryAfterMs: options.minRetryAfterMs } : {}),
      ...(options.maxRetryAfterMs !== undefined ? { maxRetryAfterMs: options.maxRetryAfterMs } : {}),
    },
    now,
    onError,
  });

  /** Every started delivery until its verdict is recorded (what `stop` waits for). */
  const tasks = new Set<Promise<void>>();
  /** Deliveries holding a connection slot: from start to the end of their HTTP exchange. */
  let busy = 0;
  /** Deliveries whose exchange is over and whose verdict is not yet recorded. */
  let recording = 0;
  /**
   * In flight per endpoint, and claimed beyond the free slots (up to `2 × concurrency` more, and
   * per endpoint up to twice its cap more: `HOLD`), started as slots free up: a claim round trip
   * then never leaves slots idle while more is due. Their leases run meanwhile; `deliver` hands back
   * one whose lease ended before it started, and `stop` the rest.
   */
  const ready = new ClaimedQueue(perEndpoint);
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;

  /** `excluded`: endpoints not claimed for (the loop: `HOLD` times their cap held; `runOnce`: their cap in flight). */
  const claim = (limit: number, excluded: readonly string[]) =>
    outbox.claim({
      owner: id,
      now: now(),
      leaseMs,
      limit,
      perEndpointLimit: perEndpoint,
      ...(excluded.length > 0 ? { excludeEndpointIds: excluded } : {}),
      ...(options.rateLimitPerEndpoint !== undefined
        ? { defaultRateLimit: options.rateLimitPerEndpoint }
        : {}),
    });

  /** Starts queued deliveries while slots are free (each only once its endpoint has one). */
  const fill = () => {
    while (running && busy < concurrency) {
      const next = ready.take();
      if (!next) return;
      void launch(next);
    }
  };

  /**
   * Starts a claimed delivery, or hands it back when its endpoint is at the local cap. Its slot is
   * freed when the HTTP exchange ends: the verdict joins the next completion batch meanwhile, and a
   * queued delivery takes the slot at once, so the HTTP loop waits on neither the claim nor the
   * completion round trip. `recording` bounds the verdicts waiting to be written.
   */
  const launch = (delivery: ClaimedDelivery, summary?: Counters): Promise<void> => {
    const endpointId = delivery.endpoint.id;
    if (!ready.hasSlot(endpointId)) return outbox.release(delivery, now()).catch(onError);
    ready.started(endpointId);
    busy++;
    let holding = true;
    const attempted = () => {
      if (!holding) return;
      holding = false;
      busy--;
      recording++;
      ready.ended(endpointId);
      fill();
      wakeIfClaimable(endpointId);
    };
    const task = deliver(delivery, attempted)
      .then((resolution) => {
        if (summary && resolution) count_(summary, resolution);
        if (stopping) stopping[resolution ? 'drained' : 'released']++;
      })
      .catch(onError)
      .finally(() => {
        if (holding) attempted();
        recording--;
        tasks.delete(task);
        wakeIfClaimable(undefined);
      });
    tasks.add(task);
    return task;
  };

  const idle = (ms: number): Promise<void> =>
    new Promise<void>((resolveWait) => {
      if (options.sleep) {
        wake = resolveWait;
        void sleep(ms).then(resolveWait);
        return;
      }
      const timer = setTimeout(resolveWait, ms);
      wake = () => {
        clearTimeout(timer);
        resolveWait();
      };
    });

  // Claim in batches: waking on every finished attempt would cost one claim transaction per delivery.
  const minBatch = Math.max(1, Math.floor(concurrency / 4));
  // While more is due the loop claims once a round's worth is free (see HOLD).
  const refill = concurrency;
  /** The last claim was cut short by a limit (batch size or an endpoint's cap): more is due. */
  let saturated = false;
  /** Endpoints the last claim left out (`HOLD` times their cap held): claim again once one drops below. */
  let blocked: ReadonlySet<string> = new Set();
  // Verdicts not yet written count once they pass `concurrency`: a slow database slows the claims.
  const room = () => HOLD * concurrency - busy - ready.length - Math.max(0, recording - concurrency);
  const unblocked = (endpointId: string | undefined) =>
    endpointId !== undefined && blocked.has(endpointId) && ready.held(endpointId) < HOLD * perEndpoint;
  const claimable = (endpointId: string | undefined) =>
    room() >= refill && (saturated || unblocked(endpointId));
  function wakeIfClaimable(endpointId: string | undefined): void {
    if (wake && claimable(endpointId)) wake();
  }

  const runLoop = async () => {
    while (running) {
      const free = room();
      let claimed = 0;
      let capped = false;
      let excluded: string[] = [];
      if (free >= minBatch || (busy === 0 && ready.length === 0 && free > 0)) {
        try {
          excluded = ready.atLeast(HOLD * perEndpoint, false);
          const batch = await claim(free, excluded);
          claimed = batch.length;
          capped = ready.admit(batch);
          fill();
        } catch (error) {
          onError(error);
        }
      }
      if (!running) break;
      // Cut short by the batch size or an endpoint's cap: more is probably due, claim again once
      // a round's worth is free. Otherwise nothing more is due now (except, maybe, for the
      // endpoints left out, which wake the loop when they drop below their limit): poll later.
      saturated = claimed > 0 && (claimed === free || capped);
      blocked = new Set(excluded);
      if (saturated && room() >= refill) continue;
      await idle(saturated ? 60_000 : pollIntervalMs);
      wake = undefined;
    }
  };

  return {
    id,
    start() {
      if (running) return;
      running = true;
      loop = runLoop();
    },
    async stop(stopOptions?: StopOptions): Promise<StopResult> {
      const deadlineMs = stopTimeout('worker.stop', stopOptions);
      const tally = { drained: 0, released: 0 };
      stopping = tally;
      running = false;
      wake?.();
      // Claimed ahead but never started: straight back, another worker may take them at once.
      const handBack = async () => {
        for (const delivery of ready.drain()) {
          await outbox.release(delivery, now()).catch(onError);
          tally.released++;
        }
      };
      await handBack();
      // In-flight attempts run on until the deadline; then their sockets are cut and their leases
      // released (worker-deliver.ts), so they are retried elsewhere and never count as failures.
      if (!(await settledWithin([...(loop ? [loop] : []), ...tasks], deadlineMs))) {
        shutdown.abort(shutdownReason('The delivery worker'));
      }
      await loop;
      loop = undefined;
      await handBack(); // a claim the loop had in flight at the stop
      await Promise.allSettled([...tasks]);
      await destinations?.close();
      stopping = undefined;
      shutdown = shutdownController();
      if (ownsAgents) {
        agents.http.destroy();
        agents.https.destroy();
        agents = createAgents({ maxSockets: Math.max(concurrency, 16) });
      }
      return { ...tally };
    },
    async runOnce() {
      const summary: Counters = { attempted: 0, succeeded: 0, retried: 0, dead: 0 };
      const mine = new Set<Promise<void>>();
      let waiting: { until: () => boolean; resolve: () => void } | undefined;
      const settle = () => {
        if (waiting?.until()) {
          waiting.resolve();
          waiting = undefined;
        }
      };
      // A sliding window: a slow attempt holds one slot, not the whole batch; claims come in batches.
      for (;;) {
        const free = concurrency - mine.size;
        const batch =
          free >= minBatch || mine.size === 0 ? await claim(free, ready.atLeast(perEndpoint, true)) : [];
        for (const delivery of batch) {
          const task: Promise<void> = launch(delivery, summary).finally(() => {
            mine.delete(task);
            settle();
          });
          mine.add(task);
        }
        if (mine.size === 0 && batch.length === 0) break;
        // Full claim: continue when a batch worth of slots is free. Partial: nothing else is due
        // until these finish (a finished attempt may schedule an immediate retry).
        const full = batch.length > 0 && batch.length === free;
        const until = full ? () => concurrency - mine.size >= minBatch : () => mine.size === 0;
        if (!until()) await new Promise<void>((resolve) => (waiting = { until, resolve }));
      }
      return { ...summary };
    },
  };
}

interface Counters {
  attempted: number;
  succeeded: number;
  retried: number;
  dead: number;
}

function count_(summary: Counters, resolution: AttemptResolution): void {
  summary.attempted++;
  if (resolution.kind === 'succeeded') summary.succeeded++;
  else if (resolution.kind === 'retry') summary.retried++;
  else summary.dead++;
}

/**
 * The stop signal. In-flight attempts watch it through one fanned-out listener (abort-fanout.ts);
 * destinations opening connections add their own, and more than 10 would otherwise print Node's
 * spurious leak warning.
 */
function shutdownController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
