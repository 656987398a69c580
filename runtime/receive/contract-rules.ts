/**
 * How a receiver or parser treats its contract's deliveries around the pipeline: the scheme it
 * verifies with, how a verified body is parsed, the id a provider gives a delivery, the handshakes a
 * receiver answers and a provider's defaults. A receiver part (`rules`): the scheme parts read them
 * from the contract (`contractRules`), a preset's parts from its provider (`presetRules`), so a
 * bundle carries one of the two and a contract's receiver no provider code.
 */
import { parseJson } from '../bytes.js';
import type { BodyFormats, Contract, EventMapBase, SignatureConfig } from '../contract.js';
import type {
  HandshakeResponse,
  PresetName,
  PresetOptions,
  PresetSchemeOptions,
  ProviderDescriptor,
} from '../presets/types.js';
import type {
  HeadersInput,
  PublicKeyInput,
  SchemeOptions,
  SchemeVerifier,
  Secret,
  VerifiedDelivery,
} from '../signing/scheme.js';
import type { ContractHandshakes, contractHandshakes } from './contract-handshakes.js';
import type { verificationAnswer } from './verification-event.js';

/**
 * What a receiver builds its scheme with: `createSignatureScheme` (node:crypto), its Web twin, or one
 * kind's. A receiver only verifies, so a part may build the verifying half alone (no signing code).
 */
export type SchemeFactory = (
  config: SignatureConfig,
  options: SchemeOptions & PresetOptions,
) => SchemeVerifier;

/** The receiver parts rules are built from (`ReceiverParts` has them). */
export interface RulesParts {
  readonly scheme: SchemeFactory;
  readonly decodeBody?: (formats: BodyFormats, bytes: Uint8Array, headers: HeadersInput) => unknown;
  readonly handshakes?: typeof contractHandshakes;
  readonly verification?: typeof verificationAnswer;
}

/** What a receiver or parser is given to verify with (`ReceiverOptions`, `ParserOptions`). */
export interface VerifyOptions {
  readonly secret?: Secret | readonly Secret[];
  readonly publicKey?: PublicKeyInput | readonly PublicKeyInput[];
  readonly scheme?: SchemeVerifier;
  readonly preset?: PresetOptions;
  readonly tolerance?: SchemeOptions['tolerance'];
  /** The token an echo handshake checks (receivers). */
  readonly verifyToken?: string;
}

export interface ContractRules {
  readonly scheme: SchemeVerifier;
  /** The verified raw body → the value dispatched: the provider's parser, the contract's bodies, or JSON. */
  readonly parseBody: (bytes: Uint8Array, headers: HeadersInput) => unknown;
  /** A provider's own delivery id (a header or body field); without one, the envelope's or a digest. */
  readonly eventId?: (headers: HeadersInput, body: unknown, verified: VerifiedDelivery) => string | undefined;
  /** The handshakes a receiver answers (a parser answers none, so it never asks). */
  readonly handshakes: () => ContractHandshakes | undefined;
  /** How long a processed id is remembered by default: the provider's retry window. */
  readonly ttlMs?: number;
  /** The provider wants deliveries answered before they are handled (Slack's 3 s, Discord). */
  readonly ackFastByDefault?: boolean;
  /** The answer the provider expects for an accepted delivery, when not any 2xx (Discord's 204). */
  readonly acknowledgement?: HandshakeResponse;
}

export type RulesFactory = (
  contract: Contract<EventMapBase>,
  o: VerifyOptions,
  parts: RulesParts,
  now: () => number,
) => ContractRules;

/** What a scheme is built with: the keys, the replay window and the clock. */
function schemeOptions(o: VerifyOptions, now: () => number): PresetSchemeOptions {
  return {
    secret: (o.secret ?? []) as never,
    ...(o.publicKey === undefined ? {} : { publicKey: o.publicKey }),
    ...(o.tolerance === undefined ? {} : { tolerance: o.tolerance }),
    now,
  };
}

/**
 * A contract's own rules: its scheme, JSON (or its declared `bodies`), the handshakes it declares and
 * the sender's endpoint verification event (unless it declares an event of that name itself).
 */
export const contractRules: RulesFactory = (contract, o, parts, now) => {
  const formats = contract.bodies;
  const decode = parts.decodeBody;
  return {
    scheme: o.scheme ?? parts.scheme(contract.signature, schemeOptions(o, now)),
    parseBody: formats === undefined ? parseJson : (bytes, headers) => decode!(formats, bytes, headers),
    // A contract that declares handshakes has the part, which also answers the verification event.
    handshakes: () =>
      contract.handshakes?.length
        ? parts.handshakes!(contract, o)
        : Object.hasOwn(contract.events, 'webhook.verification')
          ? undefined
          : { after: (_r, body) => parts.verification!(body) },
  };
};

/**
 * A provider preset's rules: its scheme (`scheme`, given the options every preset takes), its body
 * parser and delivery id, its handshakes (unsigned ones before verification, the rest after) and
 * its retry window, default mode and acknowledgement.
 */
export function presetRules(
  provider: ProviderDescriptor,
  scheme: (options: PresetSchemeOptions) => SchemeVerifier,
): RulesFactory {
  return (_contract, o, _parts, now) => {
    const options: PresetSchemeOptions = { ...(o.preset ?? {}), ...schemeOptions(o, now) };
    const preflight = provider.preflight;
    return {
      scheme: o.scheme ?? scheme(options),
      parseBody: (bytes, headers) => provider.parseBody(bytes, headers),
      eventId: (headers, body, verified) => provider.eventId(headers, body, verified),
      // Zoom answers with an HMAC of the secret; Twitch and Graph call hooks of the options.
      handshakes: () => ({
        ...(preflight === undefined ? {} : { before: async (r) => preflight(r, options) }),
        after: (r, body) => provider.handshake(r.headers, body, options),
      }),
      ttlMs: provider.dedupeTtlMs,
      ackFastByDefault: provider.defaultMode === 'ack-fast',
      ...(provider.acknowledgement === undefined ? {} : { acknowledgement: provider.acknowledgement }),
    };
  };
}

/** Every contract's rules (the entries' createReceiver/createParser): a preset's through `describe`. */
export function anyRules(describe: (name: PresetName) => ProviderDescriptor): RulesFactory {
  return (contract, o, parts, now) => {
    const signature = contract.signature;
    if (signature.kind !== 'preset') return contractRules(contract, o, parts, now);
    const scheme = (options: PresetSchemeOptions) => parts.scheme(signature, options);
    return presetRules(describe(signature.preset), scheme)(contract, o, parts, now);
  };
}
