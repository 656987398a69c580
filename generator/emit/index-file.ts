/** index.ts: the module's public surface; users import from the folder. */
export function emitIndexFile(header: string): string {
  return [
    header,
    "export { contract } from './contract.js';\n",
    "export { fixtures } from './fixtures.js';\n",
    "export { createReceiver } from './receiver.js';\n",
    "export * from './schemas.js';\n",
    "export { createSender } from './sender.js';\n",
    "export type * from './types.js';\n",
  ].join('');
}
