/**
 * What a receiver or parser needs beyond the pipeline, chosen per contract so a bundle carries only
 * that: the signature scheme factory (Web Crypto or node:crypto, per entry), the contract's rules or
 * a preset's provider rules (`contract-rules.ts`), and the form/multipart decoder for a contract
 * with `bodies`. The entries' `createReceiver`/`createParser` pass every part (any contract works); generated receivers pass
 * `standardWebhooksParts`, `hmacParts`, `unsignedParts` or `presetParts(<name>Preset)`, plus
 * `contractHandshakes` for declared handshakes, `ackFastQueue()` for a preset that defaults to
 * ack-fast, `headerSelector` for a `header` selector and `schemaSelector` for a choice by schema. The Node entry's parts add `node` (`receiver.node()`); the Web entry's never do.
 * `createReceiverWith` does not check that the parts fit the contract (a receiver bundle should not
 * carry that code): the generator chooses them (`receiverParts`, tested against these rules), and a
 * hand-written contract goes through the entries' `createReceiver`, which has them all.
 */
import type { NodeAdapterOptions } from '../adapters/node-types.js';
import type { ReceiverLike } from '../adapters/types.js';
import type { BodyFormats, Contract, EventMapBase, SignatureConfig } from '../contract.js';
import type { PresetSchemeOptions, ProviderPreset } from '../presets/types.js';
import type { HeadersInput, SchemeOptions, SchemeVerifier } from '../signing/scheme.js';
import { refuseSigningKeys } from '../signing/standard-webhooks-core.js';
import { missingSecret, type missingVerificationKey } from '../signing/verification-key.js';
import type { CompletionMode } from './completion.js';
import type { BrokerConsumers } from './consume-broker.js';
import type { contractHandshakes } from './contract-handshakes.js';
import {
  type ContractRules,
  contractRules,
  presetRules,
  type RulesFactory,
  type SchemeFactory,
  type VerifyOptions,
} from './contract-rules.js';
import { checkedEnvelopeReader, type envelopeReader } from './envelope-reader.js';
import type { headerSelector } from './select-header.js';
import type { schemaSelector } from './select-schema.js';
import type { AckFast, NodeHandler } from './types.js';
import type { unsignedIdCheck } from './unsigned-id.js';
import { verificationAnswer } from './verification-event.js';

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

export type { SchemeFactory };

export interface ReceiverParts {
  /** Builds the contract's signature scheme. */
  readonly scheme: SchemeFactory;
  /**
   * The scheme, body parser, delivery id, handshakes and defaults of the contract: its own
   * (`contractRules`) or its provider's (`presetRules`).
   */
  readonly rules: RulesFactory;
  /**
   * The id of a delivery that carries none (the SHA-256 of its body): in every preset's parts; the
   * generator adds it for a contract whose deliveries may lack an id (a Standard Webhooks delivery
   * always has one, as has an envelope that requires its `id`).
   */
  readonly contentId?: typeof contentId;
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
  readonly node?: (receiver: ReceiverLike, options?: NodeAdapterOptions) => NodeHandler;
  /** The ack-fast mode of a preset that defaults to it (Slack, Discord, …), used when the store queues durably. */
  readonly ackFast?: AckFast;
  /**
   * How a done record that failed to write is retried: `backgroundCompletions` in the Node parts;
   * without it (the Web parts) `inlineCompletions`, a few retries before answering (edge runtimes do
   * not reliably run the timers of an answered request).
   */
  readonly completions?: CompletionMode;
  /** `receiver.consumeAmqp` / `consumeJetStream` (the Node parts; consume-amqp.ts, consume-jetstream.ts). */
  readonly consumers?: BrokerConsumers;
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
    rules: contractRules,
    envelope: checkedEnvelopeReader,
    verification: verificationAnswer,
    ...more,
  };
}

/** The parts of one provider preset (its scheme and its rules; nothing of the other presets). */
export function presetParts(preset: ProviderPreset): ReceiverParts {
  const scheme = (options: PresetSchemeOptions) => preset.scheme(options);
  return { scheme: (_config, options) => scheme(options), rules: presetRules(preset, scheme), contentId };
}

/**
 * The rules a receiver or parser works with (the parts' `rules`; the given `scheme` replaces the
 * contract's). `invalid_config` without the key the contract needs.
 */
export function rulesFor(
  contract: Contract<EventMapBase>,
  o: VerifyOptions,
  parts: ReceiverParts,
  who: string,
  now: () => number,
): ContractRules {
  const missing = (parts.missingKey ?? missingSecret)(contract.signature, o, who, contract.name);
  if (missing) throw missing;
  return parts.rules(contract, o, parts, now);
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
