/**
 * The receiver the caller holds: listener registration (chained), `handle`, `reject`, the Web
 * `fetch` and Node `node()` adapters, and the ack-fast worker's controls.
 */

import type { NodeAdapterOptions } from '../adapters/node-types.js';
import { webHandler } from '../adapters/web.js';
import { WebhookError } from '../errors.js';
import type { Completions } from './completion.js';
import type { AnyHandler } from './handler-event.js';
import { ANY, type Listeners, UNKNOWN } from './listeners.js';
import type { ReceiverParts } from './parts.js';
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
): unknown {
  const requireWorker = (): QueueWorker => {
    if (worker === undefined)
      throw new WebhookError('invalid_config', 'The worker exists in ack-fast mode only');
    return worker;
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
    startWorker: () => requireWorker().start(),
    drain: () => requireWorker().drain(),
    stop: async () => {
      await worker?.stop();
      await completions.stop();
    },
  };
  const fetchHandler = webHandler(receiver);
  return receiver;
}
