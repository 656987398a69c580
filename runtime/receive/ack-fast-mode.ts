/**
 * `ackFastQueue(options)`: the ack-fast mode as a value handed to the receiver (`ackFast:`), so the
 * queue, the worker loop and the queued-event runner are in a bundle only when a receiver uses them.
 * The receiver calls `build` once with what the run path needs and gets back `accept` (queue a
 * delivery durably and answer it) and the worker.
 */
import { WebhookError } from '../errors.js';
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import type { ReceiveTracing } from '../otel/types.js';
import type { HandshakeResponse } from '../presets/types.js';
import type { EventQueue, IdempotencyStore } from '../stores/types.js';
import { type QueuedPayload, queueProcessor } from './ack-fast.js';
import type { Extracted } from './dispatch.js';
import type { AnyHandler } from './handler-event.js';
import { headerRecord } from './handler-event.js';
import type { ReceiverHooks } from './hooks.js';
import type { Check } from './policy.js';
import { WORKER_KEYS } from './receiver-keys.js';
import { statusResult } from './respond.js';
import { type Ids, type Run, type RunContext, storeFailure } from './run-context.js';
import { queueWithDeadline } from './store-deadline.js';
import type { AckFast, ReceiveResult, WorkerOptions } from './types.js';
import { QueueWorker } from './worker.js';

export interface AckFastOptions {
  /** The durable queue. Default the store's (SQLite, PostgreSQL; Redis and memory have none). */
  readonly queue?: EventQueue;
  readonly worker?: WorkerOptions;
}

/** The receiver's run context (its store without the deadline, which the queue gets its own of) and more. */
export interface AckFastDeps extends Omit<RunContext, 'store'> {
  readonly store: IdempotencyStore<unknown> | undefined;
  readonly run: Run;
  readonly handlerFor: (event: string | undefined) => AnyHandler | undefined;
  readonly check: Check;
  readonly hooks: ReceiverHooks | undefined;
  readonly tracing: ReceiveTracing | undefined;
  /** Start the worker on the first queued event (a preset's defaulted ack-fast). */
  readonly autoStart: boolean;
  /** The provider's answer to an accepted delivery, when it is not any 2xx (Discord: an empty 204). */
  readonly acknowledgement: HandshakeResponse | undefined;
}

export interface AckFastRun {
  /**
   * Queues a verified, validated delivery durably, wakes the worker and answers (rejects with
   * `store_error`).
   */
  readonly accept: (
    x: Extracted,
    id: string,
    headers: unknown,
    ids: Partial<Ids>,
    body: Uint8Array,
  ) => Promise<ReceiveResult>;
  /** The table queue's worker; a broker queue has none (its consumers drain it: ack-fast-broker.ts). */
  readonly worker?: QueueWorker;
}

export interface AckFastMode extends AckFast {
  /** `invalid_config` when no durable queue is at hand. */
  readonly build: (deps: AckFastDeps) => AckFastRun;
}

const ACK_FAST_KEYS = { queue: true, worker: true } as const satisfies KnownKeys<AckFastOptions>;

/** Queue each verified event durably, answer at once, and process it in a worker. */
export function ackFastQueue(options: AckFastOptions = {}): AckFast {
  checkKnownOptions('ackFastQueue', options, ACK_FAST_KEYS);
  checkKnownOptions('ackFastQueue', options.worker, WORKER_KEYS, undefined, 'worker');
  const worker = options.worker ?? {};
  const mode: AckFastMode = {
    mode: 'ack-fast',
    build: (deps) => {
      const raw = options.queue ?? deps.store?.queue;
      if (raw === undefined) {
        throw new WebhookError(
          'invalid_config',
          'ack-fast needs a durable queue: a SQLite/PostgreSQL store or `queue`',
        );
      }
      const { now, leaseMs, acknowledgement } = deps;
      const queue = queueWithDeadline(raw, deps.storeTimeoutMs, now);
      const run: AckFastRun = {
        accept: async (x, id, headers, ids) => {
          const payload: QueuedPayload = {
            v: 1,
            event: x.event ?? null,
            type: x.event ?? x.type,
            id,
            timestamp: x.timestamp?.getTime() ?? null,
            data: x.data,
            dataPointer: x.dataPointer,
            headers: headerRecord(headers as Parameters<typeof headerRecord>[0]),
          };
          await queue.enqueue(deps.keyOf(id), JSON.stringify(payload), { now: now() }).catch((error) => {
            throw storeFailure(error);
          });
          if (deps.autoStart) run.worker?.start();
          run.worker?.wake();
          // The provider may expect a specific answer to a queued event (Discord: an empty 204).
          return acknowledgement === undefined
            ? statusResult(200, 'queued', 'queued', ids)
            : {
                status: acknowledgement.status,
                headers: { ...acknowledgement.headers },
                body: acknowledgement.body,
                outcome: 'queued',
                ...ids,
              };
        },
        worker: new QueueWorker({
          queue,
          now,
          leaseMs,
          process: queueProcessor({ ...deps, queue, worker }),
          onLoopError: (error) => deps.report(storeFailure(error), { outcome: 'failed' }),
          options: worker,
        }),
      };
      return run;
    },
  };
  return mode;
}
