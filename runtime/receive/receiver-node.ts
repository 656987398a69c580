/**
 * `createReceiver` of the Node entry: the receive pipeline with node:crypto's schemes (synchronous
 * verification: the fast path `bench/verify.bench.ts` measures).
 */
import type { Contract, EventMapBase } from '../contract.js';
import { createSignatureScheme } from '../signing/resolve.js';
import { createReceiver as createPipeline } from './create-receiver.js';
import type { HandlerTx, Receiver, ReceiverOptions } from './types.js';

export function createReceiver<M extends EventMapBase, Tx = undefined, T extends boolean = false>(
  contract: Contract<M>,
  options: ReceiverOptions<M, Tx, T>,
): Receiver<M, HandlerTx<Tx, T>> {
  return createPipeline(contract, options, createSignatureScheme);
}
