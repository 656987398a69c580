/**
 * The neutral event model: every parser (OpenAPI 3.1, 3.0, AsyncAPI 2.x, 3.x) produces this, every
 * emitter consumes it. It is plain data (JSON-serialisable) so it can be snapshotted and diffed.
 *
 * Schemas are normalised JSON Schema (draft 2020-12 vocabulary):
 * - every `$ref` is model-local: `{ "$ref": "#/schemas/<key>" }` pointing into `ContractModel.schemas`
 *   (cross-file and intra-file refs are resolved by the loader; named component schemas keep their name);
 * - OpenAPI 3.0 `nullable: true` / `x-nullable` become `"null"` in `type` (or `anyOf [..., {type:null}]`),
 *   boolean `exclusiveMinimum/Maximum` become the numeric form, `example` is kept as `examples: [..]`;
 * - other keywords are kept as written (the schema emitters warn on the ones they do not support).
 */
import type {
  BackoffConfig,
  BodyFormats,
  EnvelopeConfig,
  HandshakeConfig,
  SelectorConfig,
  SignatureConfig,
} from '@gen-webhooks/runtime';
import type { Diagnostic } from './errors.js';

export type JsonSchema = boolean | JsonSchemaObject;

export interface JsonSchemaObject {
  readonly [keyword: string]: unknown;
}

/** A schema plus where it came from, for diagnostics: `file#/json/pointer`. */
export interface SourcedSchema {
  readonly schema: JsonSchema;
  readonly source: string;
}

export type InputFormat = 'openapi-3.1' | 'openapi-3.0' | 'asyncapi-2' | 'asyncapi-3';

/**
 * Who sends a message of an AsyncAPI document that declares both directions: `send` — the document's
 * application (3.x `action: send`, 2.x `subscribe`: clients subscribe to what it publishes), a webhook
 * event; `receive` — the application receives it (3.x `action: receive`, 2.x `publish`), a message its
 * clients send; `both` — one message used in both directions.
 */
export type Direction = 'send' | 'receive' | 'both';

export interface EventModel {
  /** Event name as the contract spells it: `pet.adopted`, `issues.opened`, `branch-protection-rule`. */
  readonly name: string;
  /**
   * Set only in a contract with both directions (see Direction); absent, the event is a webhook
   * event like every event of a one-direction contract.
   */
  readonly direction?: Direction;
  readonly summary?: string;
  readonly description?: string;
  readonly deprecated?: boolean;
  /** The payload the handler receives and `send()` takes (the envelope's `data` when enveloped). */
  readonly payload: SourcedSchema;
  /** Request headers the contract declares for this event (an object schema), if any. */
  readonly headers?: SourcedSchema;
  /** Example payloads (the `data` part), in document order. */
  readonly examples: readonly unknown[];
  /** Selector values of this event (see SelectorConfig); omitted when they equal the defaults. */
  readonly match?: { readonly header?: string; readonly body?: string };
  /** Where the event is declared: `file#/webhooks/pet.adopted/post`. */
  readonly source: string;
}

export interface ContractModel {
  /** Stable key used for the output folder and identifiers, from the file name (e.g. `petstore`). */
  readonly name: string;
  readonly title: string;
  readonly version: string;
  readonly description?: string;
  readonly format: InputFormat;
  /** Path of the root document as given to the loader. */
  readonly file: string;
  /**
   * The webhook events — what the contract's application sends, the typed sender sends and the typed
   * receiver accepts — in a deterministic order (sorted by name). In a contract with both directions
   * these are the `send` and `both` messages.
   */
  readonly events: readonly EventModel[];
  /**
   * Only in an AsyncAPI contract with both directions: the messages the application receives from
   * its clients (`receive` and `both`), sorted by name, whole message bodies (no envelope is cut).
   * Typed and validated, never accepted as webhook events.
   */
  readonly received?: readonly EventModel[];
  /** Named schemas referenced by events (`#/schemas/<key>`), keys unique within the contract. */
  readonly schemas: { readonly [key: string]: SourcedSchema };
  readonly signature: SignatureConfig;
  readonly envelope: EnvelopeConfig;
  readonly selector: SelectorConfig;
  readonly retry?: BackoffConfig;
  /** Endpoint handshakes the generated receiver answers (`x-gen-webhooks.handshakes`). */
  readonly handshakes?: readonly HandshakeConfig[];
  /** Form-encoded / multipart bodies some events use (absent: JSON only). */
  readonly bodies?: BodyFormats;
  readonly diagnostics: readonly Diagnostic[];
}
