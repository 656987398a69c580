/** Types shared by the provider presets (no logic). */
import type { EnvelopeConfig, SelectorConfig, SignatureConfig } from '../contract.js';
import type {
  HeadersInput,
  RawBody,
  SchemeOptions,
  Secret,
  SignatureScheme,
  VerifiedDelivery,
} from '../signing/scheme.js';

export type PresetName = 'stripe' | 'github' | 'shopify' | 'slack' | 'twilio' | 'discord' | 'svix';

/** Provider-specific options; each preset reads only the fields documented for it. */
export interface PresetOptions {
  /** github: also accept the legacy `X-Hub-Signature: sha1=…` header (off by default). */
  readonly legacySha1?: boolean;
  /**
   * twilio: HMAC algorithm of `X-Twilio-Signature`. When omitted, the
   * `X-Twilio-Webhooks-Signature-Settings` header chooses (absent: `sha1`, the Auth Token scheme).
   */
  readonly algorithm?: 'sha1' | 'sha256';
  /**
   * twilio: the public URL Twilio called, when `VerifyInput.url` is not it (e.g. behind a proxy).
   * A function receives the request URL and returns the public one.
   */
  readonly publicUrl?: string | ((requestUrl: string | undefined) => string);
  /** discord: Ed25519 private key (32-byte seed, hex or bytes) used by `sign` (tests, `send`). */
  readonly signingKey?: Secret;
  /**
   * shopify: reject deliveries whose `X-Shopify-Triggered-At` is older than this many seconds. Off by
   * default: retries carry the original trigger time for up to 4 hours.
   */
  readonly maxAge?: number;
  /** svix: header family `sign` writes (`svix-*` default, or `webhook-*`); verification accepts both. */
  readonly headerPrefix?: 'svix' | 'webhook';
}

export type PresetSchemeOptions = SchemeOptions & PresetOptions;

/** How a receiver should run handlers: before answering (`inline`) or after a fast 2xx (`ack-fast`). */
export type ReceiveMode = 'inline' | 'ack-fast';

/** A response a receiver sends itself, without dispatching to a handler (Slack/Discord handshakes). */
export interface HandshakeResponse {
  readonly status: number;
  readonly headers: { readonly [name: string]: string };
  readonly body: string;
}

/**
 * Everything a receiver needs to know about a provider but its crypto (so it is the same object on
 * every runtime). Call order in a receiver:
 * `scheme.verify` → `parseBody` → `handshake` (answer it and stop when defined) → `eventId`/`eventType`
 * → dedupe claim (TTL `dedupeTtlMs`) → handler.
 */
export interface ProviderDescriptor<N extends PresetName = PresetName> {
  readonly name: N;
  /** `Contract` parts for this provider. */
  readonly signature: SignatureConfig;
  readonly envelope: EnvelopeConfig;
  readonly selector: SelectorConfig;
  /** Selector values of an event name (for `Contract.events[name].match`), e.g. `issues.opened`. */
  match(event: string): { readonly header?: string; readonly body?: string } | undefined;
  /** Decodes the verified raw body (JSON, or form fields for Twilio); `invalid_body` when it cannot. */
  parseBody(body: RawBody, headers: HeadersInput): unknown;
  /**
   * The dedupe key: stable across the provider's retries of one event. `verified` is what
   * `scheme.verify` returned (some providers carry the id in a header it already read).
   */
  eventId(headers: HeadersInput, body: unknown, verified?: VerifiedDelivery): string | undefined;
  /** The provider's event name, spelled as `match`/contract event names expect. */
  eventType(headers: HeadersInput, body: unknown): string | undefined;
  /** How long a processed id must be remembered: the provider's retry window plus a margin. */
  readonly dedupeTtlMs: number;
  readonly defaultMode: ReceiveMode;
  /**
   * The answer the provider expects for a delivery that was accepted (processed, duplicate, queued or
   * ignored), when it is not "any 2xx": Discord webhook events want an empty 204.
   */
  readonly acknowledgement?: HandshakeResponse;
  /** Provider handshakes answered after verification and before dispatch (never for unverified input). */
  handshake(headers: HeadersInput, body: unknown): HandshakeResponse | undefined;
}

/** A provider's descriptor with its signature scheme, bound to one runtime's crypto. */
export interface ProviderPreset<N extends PresetName = PresetName> extends ProviderDescriptor<N> {
  /** The preset's signature scheme (sign + verify). */
  scheme(options: PresetSchemeOptions): SignatureScheme;
}
