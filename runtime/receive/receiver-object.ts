/**
 * The receiver the caller holds: listener registration (chained), `handle`, `reject`, the Web
 * `fetch` and Node `node()` adapters, and the ack-fast worker's controls.
 */

import type { NodeAdapterOptions } from '../adapters/node-types.js';
import { webHandler } from '../adapters/web.js';
import { WebhookError } from '../errors.js';
import { type StopOptions, type StopResult, settledWithin, stopTimeout } from '../shutdown.js';
import type { AmqpChannel } from './amqp-driver.js';
import type { Completions } from './completion.js';
import type { ConsumeOptions, JetStreamConsumeOptions } from './consume-types.js';
import type { AnyHandler } from './handler-event.js';
import { ANY, type Listeners, UNKNOWN } from './listeners.js';
import type { JetStreamConsumer } from './nats-driver.js';
import type { ReceiverParts } from './parts.js';
import type { RunGate } from './run-gate.js';
import type { ReceiveRequest, ReceiveResult } from './types.js';
import type { QueueWorker } from './worker.js';

/** Untyped: `createReceiverWith` casts it to the contract's `Receiver`. */
export function receiverObject(
  listeners: Listeners,
  handle: (request: ReceiveRequest) => Promise<ReceiveResult>,
  fail: (error: unknown, context: object) => ReceiveResult,
  maxBodyBytes: number,
  parts: ReceiverParts,
  worker: QueueWorker | undefined,
  completions: Completions,
  /** The pipeline without ack-fast queueing, which broker consumers run (default `handle`). */
  inline: (request: ReceiveRequest) => Promise<ReceiveResult> = handle,
  shutdown?: { readonly gate: RunGate; readonly graceMs: number },
): unknown {
  const requireWorker = (): QueueWorker => {
    if (worker === undefined)
      throw new WebhookError('invalid_config', 'The worker exists in ack-fast mode only');
    return worker;
  };
  const consumers = () => {
    if (parts.consumers === undefined)
      throw new WebhookError('invalid_config', 'Broker consumers are in the Node entry only');
    return parts.consumers;
  };

  const reject = (error: unknown): ReceiveResult => {
    return fail(error, {});
  };

  const receiver = {
    on(name: string, handler: AnyHandler) {
      listeners.add(name, handler);
      return receiver;
    },
    onAny: (handler: AnyHandler) => receiver.on(ANY, handler),
    onUnknown: (handler: AnyHandler) => receiver.on(UNKNOWN, handler),
    handle,
    reject,
    maxBodyBytes,
    fetch: (request: Request) => fetchHandler(request),
    node: (options?: NodeAdapterOptions) => {
      if (parts.node === undefined) {
        throw new WebhookError('invalid_config', 'receiver.node() is on Node only (use receiver.fetch)');
      }
      return parts.node(receiver, options);
    },
    consumeAmqp: (channel: AmqpChannel, queue: string, options?: ConsumeOptions) =>
      consumers().amqp(inline, channel, queue, options),
    consumeJetStream: (consumer: JetStreamConsumer, options?: JetStreamConsumeOptions) =>
      consumers().jetStream(inline, consumer, options),
    startWorker: () => requireWorker().start(),
    drain: () => requireWorker().drain(),
    stop: async () => {
      await worker?.stop();
      await completions.stop();
    },
    close: async (options?: StopOptions): Promise<StopResult> => {
      const timeoutMs = stopTimeout('receiver.close', options);
      // The ack-fast loop takes no more rows; the runs in flight (inline and queued) drain until
      // the deadline, are aborted after it, and hand their claims and queue rows back.
      const halt = async () => {
        await worker?.halt();
      };
      let result: StopResult = { drained: 0, released: 0 };
      if (shutdown) result = await shutdown.gate.close(timeoutMs, shutdown.graceMs, halt);
      else await halt();
      // A transactional handler that ignores its signal must not hold the close up forever.
      if (worker !== undefined) await settledWithin([worker.stop()], shutdown?.graceMs ?? 1000);
      await completions.stop();
      return result;
    },
  };
  const fetchHandler = webHandler(receiver);
  return receiver;
}
