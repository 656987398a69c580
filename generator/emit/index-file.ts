/**
 * index.ts: the module's public surface; users import from the folder. fixtures.ts is left out on
 * purpose: it is test data (1.9 MB for GitHub) that every consumer's tsc would otherwise parse;
 * tests import `./fixtures.js` directly.
 */
export function emitIndexFile(header: string): string {
  return [
    header,
    "export { contract } from './contract.js';\n",
    "export { createParser, createReceiver } from './receiver.js';\n",
    "export * from './schemas.js';\n",
    "export { createSender } from './sender.js';\n",
    "export type * from './types.js';\n",
  ].join('');
}
