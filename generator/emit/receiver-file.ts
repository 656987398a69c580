/**
 * receiver.ts: `createReceiver(options)` bound to this contract. The runtime's options type makes
 * the handler map exhaustive at compile time when `exhaustive: true`, and types `event.tx` from the
 * store when `transactional: true` (hence `T`). Explicit type arguments: inferring them from a
 * 261-event contract is a visible share of a consumer's tsc time, and they are known here.
 * `createParser(options)` is the handler-less form: `verifyAndParse(request)` returns the event.
 * Both hand the runtime only the parts this contract uses (its one scheme or preset, the body
 * decoder only for `bodies`, the handshake answers only for declared handshakes, the ack-fast queue
 * only for a preset that defaults to it, the header selector or the choice by schema only for a
 * contract that selects so), so a bundle carries no other scheme and none of the 22 presets.
 */
import type { ContractModel } from '../model.js';
import { commentText, quote } from './literal.js';

/**
 * Presets whose provider expects a fast answer and so default to ack-fast when the store queues
 * durably (`defaultMode` in runtime/presets; runtime/receive/feature-parts.test.ts keeps them equal).
 */
export const ACK_FAST_PRESETS: ReadonlySet<string> = new Set([
  'discord',
  'microsoft-graph',
  'okta',
  'slack',
  'twitch',
  'zoom',
]);

/** `microsoft-graph` → `microsoftGraphPreset`: the runtime's export of one bound preset. */
export function presetExport(preset: string): string {
  return `${preset.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())}Preset`;
}

/**
 * Whether the receiver chooses events by payload schema (runtime/receive/dispatch.ts, the same rule):
 * the `schema` selector, a body selector's `fallback: 'schema'`, or events sharing a type value.
 */
function choosesBySchema(model: ContractModel): boolean {
  const selector = model.selector;
  if (selector.kind === 'header') return false;
  if (selector.kind === 'schema' || (selector.kind === 'body' && selector.fallback === 'schema')) return true;
  const values = model.events.map((event) => event.match?.body ?? event.name);
  return new Set(values).size !== values.length;
}

/**
 * Whether a delivery may reach the receiver without an id (runtime/receive/receive-request.ts then
 * takes the SHA-256 of its body, the `contentId` part): a Standard Webhooks delivery always has its
 * signed `webhook-id`, and an envelope that requires its `id` field has one; a preset's parts carry
 * `contentId` themselves.
 */
function mayLackId(model: ContractModel): boolean {
  const { signature, envelope } = model;
  if (signature.kind === 'standard-webhooks' || signature.kind === 'preset') return false;
  if (envelope.kind !== 'envelope') return true;
  return envelope.absent?.includes('id') === true || envelope.optional?.includes('id') === true;
}

/**
 * The runtime parts this contract's receiver needs: the names to import and the expression that
 * combines them (a `ReceiverParts`).
 */
export function receiverParts(model: ContractModel): {
  readonly imports: string[];
  readonly expression: string;
} {
  const signature = model.signature;
  const base =
    signature.kind === 'preset'
      ? {
          imports: ['presetParts', presetExport(signature.preset)],
          expression: `presetParts(${presetExport(signature.preset)})`,
        }
      : signature.kind === 'hmac'
        ? { imports: ['hmacParts'], expression: 'hmacParts' }
        : signature.kind === 'none'
          ? { imports: ['unsignedParts'], expression: 'unsignedParts' }
          : signature.kind === 'asymmetric'
            ? { imports: ['asymmetricParts'], expression: 'asymmetricParts' }
            : { imports: ['standardWebhooksParts'], expression: 'standardWebhooksParts' };
  const extra: string[] = [];
  if (mayLackId(model)) extra.push('contentId');
  if (model.selector.kind === 'header') extra.push('headerSelector');
  if (choosesBySchema(model)) extra.push('schemaSelector');
  // A preset parses its own bodies and answers its own handshakes (the runtime ignores the contract's).
  if (signature.kind !== 'preset') {
    if (model.bodies !== undefined) extra.push('decodeBody');
    if (model.handshakes !== undefined && model.handshakes.length > 0) extra.push('contractHandshakes');
  } else {
    // Preset contracts are bare unless a document wraps the provider's events in an envelope.
    if (model.envelope.kind === 'envelope') extra.push('envelopeReader');
    if (ACK_FAST_PRESETS.has(signature.preset)) extra.push('ackFastQueue');
  }
  if (extra.length === 0) return base;
  const fields = extra.map((name) =>
    name === 'contractHandshakes'
      ? 'handshakes: contractHandshakes'
      : name === 'ackFastQueue'
        ? 'ackFast: ackFastQueue()'
        : name === 'envelopeReader'
          ? 'envelope: envelopeReader'
          : name,
  );
  return {
    imports: [...base.imports, ...extra],
    expression: `{ ...${base.expression}, ${fields.join(', ')} }`,
  };
}

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
  const parts = receiverParts(model);
  const names = [
    'createParserWith',
    'createReceiverWith',
    ...parts.imports,
    'type Parser',
    'type ParserOptions',
    ...(asymmetric ? ['type PublicKeyInput'] : []),
    'type Receiver',
    'type ReceiverOptions',
    'type ReceiverParts',
  ];
  return [
    header,
    'import {\n',
    ...names.map((name) => `  ${name},\n`),
    `} from ${quote(runtime)};\n`,
    "import { contract } from './contract.js';\n",
    "import type { Events } from './types.js';\n",
    '\n',
    ...option,
    `const parts: ReceiverParts = ${parts.expression.startsWith('presetParts') ? '/* @__PURE__ */ ' : ''}${parts.expression};\n`,
    '\n',
    `/** Verifies, validates and dispatches ${title} deliveries to typed handlers. */\n`,
    'export function createReceiver<Tx = undefined, T extends boolean = false>(\n',
    `  options: ReceiverOptions<Events, Tx, T>${key},\n`,
    '): Receiver<Events> {\n',
    '  return createReceiverWith<Events, Tx, T>(contract, options, parts);\n',
    '}\n',
    '\n',
    `/**\n * Verifies one ${title} delivery and returns its event, narrowed on \`type\`:\n`,
    asymmetric
      ? ' * `const event = await createParser({ publicKey }).verifyAndParse(request)`. Throws `WebhookError` only.\n'
      : ' * `const event = await createParser({ secret }).verifyAndParse(request)`. Throws `WebhookError` only.\n',
    ' */\n',
    `export function createParser(options: ParserOptions${key}): Parser<Events> {\n`,
    '  return createParserWith<Events>(contract, options, parts);\n',
    '}\n',
  ].join('');
}
