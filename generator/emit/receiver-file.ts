/**
 * receiver.ts: `createReceiver(options)` bound to this contract. The runtime's options type makes
 * the handler map exhaustive at compile time when `exhaustive: true`, and types `event.tx` from the
 * store when `transactional: true` (hence `T`). Explicit type arguments: inferring them from a
 * 261-event contract is a visible share of a consumer's tsc time, and they are known here.
 */
import type { ContractModel } from '../model.js';
import { commentText, quote } from './literal.js';

export function emitReceiverFile(model: ContractModel, header: string, runtime: string): string {
  return [
    header,
    `import { createReceiver as createRuntimeReceiver, type Receiver, type ReceiverOptions } from ${quote(runtime)};\n`,
    "import { contract } from './contract.js';\n",
    "import type { Events } from './types.js';\n",
    '\n',
    `/** Verifies, validates and dispatches ${commentText(model.title)} deliveries to typed handlers. */\n`,
    'export function createReceiver<Tx = undefined, T extends boolean = false>(\n',
    '  options: ReceiverOptions<Events, Tx, T>,\n',
    '): Receiver<Events> {\n',
    '  return createRuntimeReceiver<Events, Tx, T>(contract, options);\n',
    '}\n',
  ].join('');
}
