/**
 * receiver.ts: `createReceiver(options)` bound to this contract. The runtime's options type makes
 * the handler map exhaustive at compile time when `exhaustive: true`, and types `event.tx` from the
 * store when `transactional: true` (hence `T`). Explicit type arguments: inferring them from a
 * 261-event contract is a visible share of a consumer's tsc time, and they are known here.
 * `createParser(options)` is the handler-less form: `verifyAndParse(request)` returns the event.
 */
import type { ContractModel } from '../model.js';
import { commentText, quote } from './literal.js';

export function emitReceiverFile(model: ContractModel, header: string, runtime: string): string {
  const title = commentText(model.title);
  // A contract signed with a key pair is verified with the sender's public key: required here, so a
  // receiver without one does not compile (the runtime also refuses it with `invalid_config`).
  const asymmetric = model.signature.kind === 'asymmetric';
  const key = asymmetric ? ' & PublicKeyOption' : '';
  const option = asymmetric
    ? [
        "/** The sender's public key(s): PEM, base64 DER, a JWK, or (Ed25519) the 32 raw bytes; several during a rotation. */\n",
        'export interface PublicKeyOption {\n',
        '  readonly publicKey: PublicKeyInput | readonly PublicKeyInput[];\n',
        '}\n',
        '\n',
      ]
    : [];
  return [
    header,
    'import {\n',
    '  createParser as createRuntimeParser,\n',
    '  createReceiver as createRuntimeReceiver,\n',
    '  type Parser,\n',
    '  type ParserOptions,\n',
    ...(asymmetric ? ['  type PublicKeyInput,\n'] : []),
    '  type Receiver,\n',
    '  type ReceiverOptions,\n',
    `} from ${quote(runtime)};\n`,
    "import { contract } from './contract.js';\n",
    "import type { Events } from './types.js';\n",
    '\n',
    ...option,
    `/** Verifies, validates and dispatches ${title} deliveries to typed handlers. */\n`,
    'export function createReceiver<Tx = undefined, T extends boolean = false>(\n',
    `  options: ReceiverOptions<Events, Tx, T>${key},\n`,
    '): Receiver<Events> {\n',
    '  return createRuntimeReceiver<Events, Tx, T>(contract, options);\n',
    '}\n',
    '\n',
    `/**\n * Verifies one ${title} delivery and returns its event, narrowed on \`type\`:\n`,
    asymmetric
      ? ' * `const event = await createParser({ publicKey }).verifyAndParse(request)`. Throws `WebhookError` only.\n'
      : ' * `const event = await createParser({ secret }).verifyAndParse(request)`. Throws `WebhookError` only.\n',
    ' */\n',
    `export function createParser(options: ParserOptions${key}): Parser<Events> {\n`,
    '  return createRuntimeParser<Events>(contract, options);\n',
    '}\n',
  ].join('');
}
