/**
 * index.ts: the module's public surface; users import from the folder. fixtures.ts is left out on
 * purpose: it is test data (1.9 MB for GitHub) that every consumer's tsc would otherwise parse;
 * tests import `./fixtures.js` directly, and `testDelivery` loads it only when a test omits the
 * payload (through a specifier tsc and bundlers do not follow).
 */
import type { ContractModel } from '../model.js';
import { commentText, quote } from './literal.js';

/** The runtime values index.ts imports (test/generated-entry.test.ts checks the entry has them). */
export const INDEX_RUNTIME_VALUES = ['WebhookError', 'isWebhookError', 'testDelivery'] as const;

/** Presets whose provider signs with a private key it keeps: tests sign with a test key pair. */
const KEY_PAIR_PRESETS: readonly string[] = ['discord', 'sendgrid', 'plaid'];

function optionsType(model: ContractModel): string {
  const signature = model.signature;
  if (signature.kind === 'none') return "Omit<SecretTestOptions, 'secret'>";
  const keyPair =
    signature.kind === 'asymmetric' ||
    (signature.kind === 'preset' && KEY_PAIR_PRESETS.includes(signature.preset));
  return keyPair ? 'KeyPairTestOptions' : 'SecretTestOptions';
}

export function emitIndexFile(model: ContractModel, header: string, runtime: string): string {
  const options = optionsType(model);
  const optionsImport =
    options === 'KeyPairTestOptions' ? 'type KeyPairTestOptions' : 'type SecretTestOptions';
  return [
    header,
    `import {\n  ${optionsImport},\n  type TestDelivery,\n  testDelivery as runtimeTestDelivery,\n} from ${quote(runtime)};\n`,
    "import { contract } from './contract.js';\n",
    "import type { EventName, Events } from './types.js';\n",
    '\n',
    `export { isWebhookError, WebhookError } from ${quote(runtime)};\n`,
    `export type { TestDelivery } from ${quote(runtime)};\n`,
    "export { contract } from './contract.js';\n",
    "export { createParser, createReceiver } from './receiver.js';\n",
    "export * from './schemas.js';\n",
    "export { createSender } from './sender.js';\n",
    "export type * from './types.js';\n",
    '\n',
    `export type TestDeliveryOptions = ${options};\n`,
    '\n',
    // A variable, not a literal: tsc and bundlers then leave the fixtures out of the consumer's graph.
    "const FIXTURES = './fixtures.js';\n",
    '\n',
    '/**\n',
    ` * A correctly signed ${commentText(model.title)} delivery of \`event\`, built as \`createSender\` sends it, for\n`,
    ' * unit tests of your handlers: `await receiver.fetch(delivery.request())`. Without a payload, the\n',
    " * event's fixture (fixtures.ts). Asynchronous because Web Crypto signs asynchronously.\n",
    ' */\n',
    'export function testDelivery<K extends EventName>(\n',
    '  event: K,\n',
    '  payload: Events[K],\n',
    '  options: TestDeliveryOptions,\n',
    '): Promise<TestDelivery>;\n',
    'export function testDelivery<K extends EventName>(event: K, options: TestDeliveryOptions): Promise<TestDelivery>;\n',
    'export async function testDelivery<K extends EventName>(\n',
    '  event: K,\n',
    '  ...rest: [Events[K], TestDeliveryOptions] | [TestDeliveryOptions]\n',
    '): Promise<TestDelivery> {\n',
    '  const options = rest.length === 2 ? rest[1] : rest[0];\n',
    '  const payload =\n',
    '    rest.length === 2\n',
    '      ? rest[0]\n',
    '      : ((await import(/* @vite-ignore */ FIXTURES)) as { fixtures: Events }).fixtures[event];\n',
    options === "Omit<SecretTestOptions, 'secret'>"
      ? "  // An unsigned contract: no secret signs its deliveries.\n  return runtimeTestDelivery<Events, K>(contract, event, payload, { ...options, secret: '' });\n"
      : '  return runtimeTestDelivery<Events, K>(contract, event, payload, options);\n',
    '}\n',
  ].join('');
}
