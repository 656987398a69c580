/** sender.ts: `createSender(options)` bound to this contract; `send()` takes each event's payload type. */
import type { ContractModel } from '../model.js';
import { commentText, quote } from './literal.js';

export function emitSenderFile(model: ContractModel, header: string, runtime: string): string {
  return [
    header,
    `import { createSender as createRuntimeSender, type Sender, type SenderOptions } from ${quote(runtime)};\n`,
    "import { contract } from './contract.js';\n",
    "import type { Events } from './types.js';\n",
    '\n',
    `/** Signs and delivers ${commentText(model.title)} events; \`send(name, payload)\` is typed per event. */\n`,
    'export function createSender(options: SenderOptions = {}): Sender<Events> {\n',
    '  return createRuntimeSender<Events>(contract, options);\n',
    '}\n',
  ].join('');
}
