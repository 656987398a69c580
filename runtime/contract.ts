/**
 * The contract descriptor: what a generated module hands to the runtime. The generator emits one
 * `contract.ts` per input document using exactly these types; `createReceiver` and `createSender`
 * are generic over the event map `M` (event name → payload interface), so the public types are the
 * generated interfaces and never `z.infer`.
 */
import type { HandshakeConfig } from './handshake-config.js';

export type * from './handshake-config.js';

/** The Standard Schema v1 interface (https://standardschema.dev), implemented by zod v4 schemas. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
    ) => StandardSchemaV1.Result<Output> | Promise<StandardSchemaV1.Result<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

export declare namespace StandardSchemaV1 {
  type Result<Output> = SuccessResult<Output> | FailureResult;
  interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
  }
}

/** The provider presets implemented in the runtime (runtime/presets, one file each). */
export type PresetName =
  | 'stripe'
  | 'github'
  | 'shopify'
  | 'slack'
  | 'twilio'
  | 'discord'
  | 'svix'
  | 'zoom'
  | 'twitch'
  | 'meta'
  | 'microsoft-graph'
  | 'azure-event-grid'
  | 'square'
  | 'paddle'
  | 'lemon-squeezy'
  | 'linear'
  | 'intercom'
  | 'hubspot'
  | 'mailgun'
  | 'sendgrid'
  | 'plaid'
  | 'okta';

/** How deliveries of a contract are signed. Default: Standard Webhooks. */
/** Public-key signature algorithms of `SignatureConfig` kind `asymmetric` (Fern's names). */
export type AsymmetricAlgorithm =
  | 'ed25519'
  | 'ecdsa-sha256'
  | 'ecdsa-sha384'
  | 'ecdsa-sha512'
  | 'rsa-sha256'
  | 'rsa-sha384'
  | 'rsa-sha512';

export type SignatureConfig =
  | { readonly kind: 'standard-webhooks' }
  | {
      /** A simple HMAC scheme, e.g. `X-Webhook-Signature: sha256=<hex>`. */
      readonly kind: 'hmac';
      /** Header that carries the signature (case-insensitive). */
      readonly header: string;
      readonly algorithm: 'sha256' | 'sha1' | 'sha512';
      readonly encoding: 'hex' | 'base64';
      /** Text before the signature value, e.g. `sha256=`. */
      readonly prefix?: string;
      /** Header with the Unix-seconds timestamp; when set it is signed and checked against the window. */
      readonly timestampHeader?: string;
      /** Header with the delivery id (used for dedupe when the envelope has no id). */
      readonly idHeader?: string;
      /**
       * What is signed. `{body}`, `{timestamp}` and `{id}` are replaced; default `{body}`, or
       * `{timestamp}.{body}` when `timestampHeader` is set.
       */
      readonly signedContent?: string;
    }
  | {
      /**
       * A public-key signature (Fern's `x-fern-webhook-signature` `type: asymmetric`): the sender signs
       * with its private key (the endpoint's secret), receivers verify with the public key they are
       * given (`publicKey` on createReceiver / createParser). Web Crypto, so it runs on edge runtimes.
       */
      readonly kind: 'asymmetric';
      /** Header that carries the signature (case-insensitive). */
      readonly header: string;
      /**
       * `ed25519`; `ecdsa-sha256` / `-sha384` / `-sha512` (P-256 / P-384 / P-521, DER or raw `r‖s`);
       * `rsa-sha256` / `-sha384` / `-sha512` (RSASSA-PKCS1-v1_5).
       */
      readonly algorithm: AsymmetricAlgorithm;
      readonly encoding: 'hex' | 'base64';
      /** Text before the signature value. */
      readonly prefix?: string;
      /** Header with the Unix-seconds timestamp; when set it is checked against the window. */
      readonly timestampHeader?: string;
      /** What is signed: `{body}` and `{timestamp}` are replaced; default `{body}`. */
      readonly signedContent?: string;
    }
  | {
      /** A provider preset implemented in the runtime (see runtime/presets). */
      readonly kind: 'preset';
      readonly preset: PresetName;
    }
  | { readonly kind: 'none' };

/**
 * Where the event id, type, timestamp and data sit in the body.
 * - `envelope`: the body is `{ [id]: string, [type]: string, [timestamp]: ISO-8601, [data]: payload }`.
 *   Field names default to `id`, `type`, `timestamp`, `data` (the Standard Webhooks envelope).
 *   `absent` and `optional` describe envelopes that carry fewer fields (the id in a signed
 *   `webhook-id` header, no timestamp), `timestampFormat` those that write Unix time.
 * - `bare`: the body is the payload itself (GitHub, Shopify); id and type come from headers/selector.
 */
export type EnvelopeConfig =
  | {
      readonly kind: 'envelope';
      readonly fields?: {
        readonly id?: string;
        readonly type?: string;
        readonly timestamp?: string;
        readonly data?: string;
        /** Optional field carrying the contract's API version, e.g. `apiVersion`. */
        readonly apiVersion?: string;
      };
      /** Value the sender writes into the `apiVersion` field. */
      readonly apiVersion?: string;
      /** How the timestamp field is written: `iso` (RFC 3339, default), `unix` seconds or `unix-ms`. */
      readonly timestampFormat?: EnvelopeTimestampFormat;
      /**
       * Fields the body does not have: the id and timestamp then come from the signature's headers
       * (or a content hash), the type from the selector. The sender does not write them.
       */
      readonly absent?: readonly EnvelopeMetaField[];
      /** Fields a body may leave out: read when present, never demanded. */
      readonly optional?: readonly EnvelopeMetaField[];
    }
  | { readonly kind: 'bare' };

/** The envelope fields besides `data` that a contract may leave out of its bodies. */
export type EnvelopeMetaField = 'id' | 'type' | 'timestamp';

export type EnvelopeTimestampFormat = 'iso' | 'unix' | 'unix-ms';

/**
 * How a receiver finds which event a delivery is. Default: the envelope's type field.
 * - `header` + optional `bodyField`: GitHub-style (`X-GitHub-Event: issues` plus body `action: opened`).
 *   An event matches when the header equals `match.header` and, if the event has `match.body`, the
 *   body field equals it.
 * - `body`: a field of the body (dot path), e.g. `type` or `event`.
 * - `schema`: no type field; the payload schemas tell the events apart.
 * With `envelope-type` and `body`, a value that is no event's `match.body` but is an event's name
 * selects that event.
 */
export type SelectorConfig =
  | { readonly kind: 'envelope-type' }
  | {
      readonly kind: 'body';
      readonly field: string;
      /** A body without the field is the one event whose schema accepts it (events that have none). */
      readonly fallback?: 'schema';
    }
  | { readonly kind: 'header'; readonly header: string; readonly bodyField?: string }
  | {
      /**
       * No field names the event: the delivery is the one event whose payload schema accepts it (a
       * contract with one event: always that one). Needs synchronous schemas (zod).
       */
      readonly kind: 'schema';
    };

/** Retry schedule of a contract (see runtime/backoff.ts). Delays in seconds. */
export type BackoffConfig =
  | {
      readonly kind: 'exponential';
      readonly initialDelay: number;
      readonly factor: number;
      readonly maxDelay: number;
      /** Attempts in all, the first delivery included (≥ 1): `maxAttempts: 5` is 1 delivery + 4 retries. */
      readonly maxAttempts: number;
      readonly jitter?: JitterConfig;
    }
  | { readonly kind: 'list'; readonly delays: readonly number[]; readonly jitter?: JitterConfig };

export type JitterConfig =
  | { readonly kind: 'none' }
  | { readonly kind: 'full' }
  | { readonly kind: 'percent'; readonly percent: number };

export interface EventDefinition<T = unknown> {
  readonly schema: StandardSchemaV1<unknown, T>;
  /**
   * Selector values of this event. Defaults: `body` = the event name for `body`/`envelope-type`
   * selectors; for `header` selectors, `header` is required and `body` optional.
   */
  readonly match?: { readonly header?: string; readonly body?: string };
  /**
   * Top-level fields the payload schema declares. With the `schema` selector, when several schemas
   * accept a body, the event declaring the most of the body's fields is chosen (a tie selects none).
   */
  readonly fields?: readonly string[];
  readonly deprecated?: boolean;
  readonly summary?: string;
}

export type EventMapBase = { readonly [event: string]: unknown };

/**
 * Request bodies other than JSON that a contract's deliveries use. The receiver decodes them, by
 * the request's `Content-Type`, into an object of fields (the payload) after verifying the raw bytes.
 */
export interface BodyFormats {
  /** `application/x-www-form-urlencoded`: fields as strings (a repeated name gives a list). */
  readonly form?: boolean;
  /** `multipart/form-data`: text parts as strings, file parts as their bytes in base64. */
  readonly multipart?: boolean;
  /** Fields that carry JSON text (a `payload` part), parsed; parts sent as `application/json` are too. */
  readonly jsonFields?: readonly string[];
}

export interface Contract<M extends EventMapBase = EventMapBase> {
  readonly name: string;
  readonly version?: string;
  readonly events: { readonly [K in keyof M & string]: EventDefinition<M[K]> };
  readonly signature: SignatureConfig;
  readonly envelope: EnvelopeConfig;
  readonly selector: SelectorConfig;
  readonly retry?: BackoffConfig;
  /** Non-JSON bodies the deliveries use (default: JSON only). */
  readonly bodies?: BodyFormats;
  /** Endpoint handshakes the receiver answers by itself (`x-gen-webhooks.handshakes`). */
  readonly handshakes?: readonly HandshakeConfig[];
}

/** Identity helper that checks a descriptor against the event map. */
export function defineContract<M extends EventMapBase>(contract: Contract<M>): Contract<M> {
  return contract;
}

export type EventName<M extends EventMapBase> = keyof M & string;
