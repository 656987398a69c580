/**
 * What a receiver or parser needs beyond the pipeline, chosen per contract so a bundle carries only
 * that: the signature scheme factory (Web Crypto or node:crypto, per entry), the provider's rules for
 * a preset contract, and the form/multipart decoder for a contract with `bodies`. The entries'
 * `createReceiver`/`createParser` pass every part (any contract works); generated receivers pass
 * `standardWebhooksParts`, `hmacParts`, `unsignedParts` or `presetParts(<name>Preset)`, plus
 * `contractHandshakes` for declared handshakes, `ackFastQueue()` for a preset that defaults to
 * ack-fast, `headerSelector` for a `header` selector and `schemaSelector` for a choice by schema. The Node entry's parts add `node` (`receiver.node()`); the Web entry's never do.
 * `createReceiverWith` does not check that the parts fit the contract (a receiver bundle should not
 * carry that code): the generator chooses them (`receiverParts`, tested against these rules), and a
 * hand-written contract goes through the entries' `createReceiver`, which has them all.
 */
import type { ReceiverLike } from '../adapters/types.js';
import { parseJson } from '../bytes.js';
import type { BodyFormats, Contract, EventMapBase, SignatureConfig } from '../contract.js';
import type {
  PresetName,
  PresetOptions,
  PresetSchemeOptions,
  ProviderDescriptor,
  ProviderPreset,
} from '../presets/types.js';
import type {
  HeadersInput,
  PublicKeyInput,
  SchemeOptions,
  SchemeVerifier,
  Secret,
} from '../signing/scheme.js';
import { refuseSigningKeys } from '../signing/standard-webhooks-core.js';
import { missingSecret, type missingVerificationKey } from '../signing/verification-key.js';
import type { CompletionMode } from './completion.js';
import type { contractHandshakes } from './contract-handshakes.js';
import { checkedEnvelopeReader, type envelopeReader } from './envelope-reader.js';
import type { headerSelector } from './select-header.js';
import type { schemaSelector } from './select-schema.js';
import type { AckFast, NodeHandler } from './types.js';
import type { unsignedIdCheck } from './unsigned-id.js';
import { verificationAnswer } from './verification-event.js';

/**
 * What a receiver builds its scheme with: `createSignatureScheme` (node:crypto), its Web twin, or one
 * kind's. A receiver only verifies, so a part may build the verifying half alone (no signing code).
 */
export type SchemeFactory = (
  config: SignatureConfig,
  options: SchemeOptions & PresetOptions,
) => SchemeVerifier;

/**
 * Any contract's scheme for the entries' `createReceiver`/`createParser`: a Standard Webhooks one
 * refuses a `whsk_` signing key, as the generated receivers' parts do (a receiver verifies with `whpk_`).
 */
export function verifyingSchemes(create: SchemeFactory): SchemeFactory {
  return (config, options) => {
    if (config.kind === 'standard-webhooks') refuseSigningKeys(options.secret);
    return create(config, options);
  };
}

export interface ReceiverParts {
  /** Builds the contract's signature scheme. */
  readonly scheme: SchemeFactory;
  /** A preset contract's provider rules (event ids, handshakes, body parsing, default mode). */
  readonly provider?: (name: PresetName) => ProviderDescriptor;
  /** The decoder of a contract that declares `bodies` (form-encoded, multipart). */
  readonly decodeBody?: (formats: BodyFormats, bytes: Uint8Array, headers: HeadersInput) => unknown;
  /** Reads an enveloped contract's envelope; in every scheme's parts, not in `presetParts` (bare bodies). */
  readonly envelope?: typeof envelopeReader;
  /** The `header` selector (GitHub's `X-GitHub-Event`), for a contract that names its events in a header. */
  readonly headerSelector?: typeof headerSelector;
  /**
   * The choice by payload schema: the `schema` selector, `fallback: 'schema'`, or events that share a
   * type value.
   */
  readonly schemaSelector?: typeof schemaSelector;
  /**
   * The check that the options hold the key a contract is verified with: without it the shared
   * `secret`'s (`missingSecret`); the asymmetric parts' also asks a key-pair contract for `publicKey`.
   */
  readonly missingKey?: typeof missingVerificationKey;
  /** The answer to the sender's `webhook.verification` event: every contract's but a preset's. */
  readonly verification?: typeof verificationAnswer;
  /** The check of an `hmac` id header outside the signed content (the hmac parts carry it). */
  readonly unsignedId?: typeof unsignedIdCheck;
  /** The answers to the handshakes a contract declares (`x-gen-webhooks.handshakes`). */
  readonly handshakes?: typeof contractHandshakes;
  /** `receiver.node()`: the node:http adapter (the Node entry's parts; a Web bundle has none). */
  readonly node?: (receiver: ReceiverLike) => NodeHandler;
  /** The ack-fast mode of a preset that defaults to it (Slack, Discord, …), used when the store queues durably. */
  readonly ackFast?: AckFast;
  /**
   * How a done record that failed to write is retried: `backgroundCompletions` in the Node parts;
   * without it (the Web parts) `inlineCompletions`, a few retries before answering (edge runtimes do
   * not reliably run the timers of an answered request).
   */
  readonly completions?: CompletionMode;
}

/**
 * The parts of contracts signed with one scheme kind `K` (a generated receiver passes the parts of
 * its contract's kind; the runtime's `createReceiver` resolves any kind), plus `more` of that kind's.
 */
export function schemeParts<K extends Exclude<SignatureConfig['kind'], 'preset'>>(
  make: (config: Extract<SignatureConfig, { readonly kind: K }>, options: SchemeOptions) => SchemeVerifier,
  more?: Partial<ReceiverParts>,
): ReceiverParts {
  return {
    scheme: make as SchemeFactory,
    envelope: checkedEnvelopeReader,
    verification: verificationAnswer,
    ...more,
  };
}

/** The parts of one provider preset (its scheme and its rules; nothing of the other presets). */
export function presetParts(preset: ProviderPreset): ReceiverParts {
  return {
    scheme: (_config, options) => preset.scheme(options),
    provider: () => preset,
  };
}

/** The provider of a preset contract (its parts carry it: `presetParts`, or every preset's). */
export function providerOf(
  contract: Contract<EventMapBase>,
  parts: ReceiverParts,
): ProviderDescriptor | undefined {
  return contract.signature.kind === 'preset' ? parts.provider!(contract.signature.preset) : undefined;
}

/** What a receiver or parser is given to verify with (`ReceiverOptions`, `ParserOptions`). */
interface VerifyOptions {
  readonly secret?: Secret | readonly Secret[];
  readonly publicKey?: PublicKeyInput | readonly PublicKeyInput[];
  readonly scheme?: SchemeVerifier;
  readonly preset?: PresetOptions;
  readonly tolerance?: SchemeOptions['tolerance'];
}

/**
 * The scheme a receiver or parser verifies with (the given `scheme`, else the parts' one for the
 * contract) and the options it is built with, which a preset's handshakes take too. `invalid_config`
 * without the key the contract needs.
 */
export function verifierFor(
  contract: Contract<EventMapBase>,
  o: VerifyOptions,
  parts: ReceiverParts,
  who: string,
  now: () => number,
): { readonly scheme: SchemeVerifier; readonly presetOptions: PresetSchemeOptions } {
  const missing = (parts.missingKey ?? missingSecret)(contract.signature, o, who, contract.name);
  if (missing) throw missing;
  const presetOptions: PresetSchemeOptions = {
    ...(o.preset ?? {}),
    secret: (o.secret ?? []) as never,
    ...(o.publicKey === undefined ? {} : { publicKey: o.publicKey }),
    ...(o.tolerance === undefined ? {} : { tolerance: o.tolerance }),
    now,
  };
  return { scheme: o.scheme ?? parts.scheme(contract.signature, presetOptions), presetOptions };
}

/** The verified raw body → the value dispatched: the provider's parser, the contract's bodies, or JSON. */
export function bodyParser(
  contract: Contract<EventMapBase>,
  parts: ReceiverParts,
  provider: ProviderDescriptor | undefined,
): (bytes: Uint8Array, headers: HeadersInput) => unknown {
  if (provider !== undefined) return (bytes, headers) => provider.parseBody(bytes, headers);
  const formats = contract.bodies;
  if (formats === undefined) return parseJson;
  const decode = parts.decodeBody!;
  return (bytes, headers) => decode(formats, bytes, headers);
}

/** The id of a delivery that carries none: the SHA-256 of its body. */
export async function contentId(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>),
  );
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return `sha256:${hex}`;
}
