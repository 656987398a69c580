/**
 * `createReceiver` of the Web entry: the receive pipeline with Web Crypto schemes. Same type as the
 * Node entry's, so a generated receiver compiles against either.
 */
import type { Contract, EventMapBase } from '../contract.js';
import { createSignatureSchemeWeb } from '../signing/resolve-web.js';
import { createReceiver as createPipeline } from './create-receiver.js';
import type { HandlerTx, Receiver, ReceiverOptions } from './types.js';

export function createReceiver<M extends EventMapBase, Tx = undefined, T extends boolean = false>(
  contract: Contract<M>,
  options: ReceiverOptions<M, Tx, T>,
): Receiver<M, HandlerTx<Tx, T>> {
  return createPipeline(contract, options, createSignatureSchemeWeb);
}
