/** Types shared by the provider presets (no logic). */
import type { EnvelopeConfig, PresetName, SelectorConfig, SignatureConfig } from '../contract.js';
import type {
  HeadersInput,
  RawBody,
  SchemeOptions,
  Secret,
  SignatureScheme,
  VerifiedDelivery,
} from '../signing/scheme.js';

export type { PresetName };

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
   * twilio, square, hubspot: the public URL the provider called (and signed), when `VerifyInput.url`
   * is not it (e.g. behind a proxy). A function receives the request URL and returns the public one.
   * Square signs the notification URL exactly as registered in its dashboard.
   */
  readonly publicUrl?: string | ((requestUrl: string | undefined) => string);
  /** meta: the Verify Token you typed in the App Dashboard; the `hub.verify_token` GET must carry it. */
  readonly verifyToken?: string;
  /**
   * twitch: called with the `subscription` of a verified `revocation` message (answered 204, never a
   * handler error). Runs before dedupe, so a redelivered revocation calls it again.
   */
  readonly onRevocation?: (subscription: unknown) => unknown;
  /**
   * microsoft-graph: called with the lifecycle notifications (`reauthorizationRequired`,
   * `subscriptionRemoved`, `missed`) of a delivery whose `clientState` checked out (answered 202).
   */
  readonly onLifecycle?: (notifications: readonly unknown[]) => unknown;
  /** okta: header that carries the event hook's shared secret (default `Authorization`). */
  readonly authHeader?: string;
  /**
   * azure-event-grid: where the shared secret travels. Default: query parameter `code` of the
   * endpoint URL (`https://…/events?code=<secret>`); `{ header: 'X-Secret' }` for a delivery property.
   */
  readonly secretIn?: { readonly query: string } | { readonly header: string };
  /**
   * azure-event-grid: origins the CloudEvents abuse-protection handshake allows (`WebHook-Allowed-Origin`).
   * Default `['eventgrid.azure.net']`; `'*'` allows any.
   */
  readonly allowedOrigins?: readonly string[] | '*';
  /** azure-event-grid: requests per minute granted in `WebHook-Allowed-Rate`. Default `*` (no limit). */
  readonly allowedRate?: number | '*';
  /**
   * plaid: the verification key (JWK) of a `kid`. Default: none — pass `plaidKeyFetcher({ clientId,
   * secret })`, which calls `/webhook_verification_key/get`. Results are cached per `kid`.
   */
  readonly getKey?: (kid: string) => PlaidKey | Promise<PlaidKey>;
  /**
   * The private key `sign` uses (tests, `send`): discord: Ed25519 seed (32 bytes, hex or bytes);
   * sendgrid, plaid: PKCS#8 P-256 key (PEM, base64 DER or bytes).
   */
  readonly signingKey?: Secret;
  /** plaid: the `kid` `sign` writes. Default `test-key`. */
  readonly keyId?: string;
  /** plaid: your client id; with the Plaid API secret as `secret`, keys are fetched from Plaid. */
  readonly clientId?: string;
  /** plaid: the API host keys are fetched from. Default `production`. */
  readonly environment?: 'production' | 'sandbox';
  /**
   * shopify: reject deliveries whose `X-Shopify-Triggered-At` is older than this many seconds; intercom:
   * whose signed `first_sent_at` is. Off by default: retries carry the original time.
   */
  readonly maxAge?: number;
  /** svix: header family `sign` writes (`svix-*` default, or `webhook-*`); verification accepts both. */
  readonly headerPrefix?: 'svix' | 'webhook';
}

/** A Plaid webhook verification key as `/webhook_verification_key/get` returns it (an EC P-256 JWK). */
export interface PlaidKey {
  readonly kty: string;
  readonly crv: string;
  readonly x: string;
  readonly y: string;
  readonly alg?: string;
  readonly kid?: string;
  /** Unix seconds; a key with `expired_at` set is refused, as Plaid's docs say. */
  readonly expired_at?: number | null;
  readonly created_at?: number;
  readonly use?: string;
}

export type PresetSchemeOptions = SchemeOptions & PresetOptions;

/** How a receiver should run handlers: before answering (`inline`) or after a fast 2xx (`ack-fast`). */
export type ReceiveMode = 'inline' | 'ack-fast';

/** A response a receiver sends itself, without dispatching to a handler (Slack/Discord/… handshakes). */
export interface HandshakeResponse {
  readonly status: number;
  readonly headers: { readonly [name: string]: string };
  readonly body: string;
}

/**
 * What a preset declares about its replay protection (docs/presets.md has the same table in prose):
 * whether the dedupe id comes from signed content, whether a signed timestamp bounds replays, which
 * handshakes it answers, and — when the id or the timestamp is not signed — what a captured delivery
 * still allows.
 */
export interface PresetDeclaration {
  readonly idSigned: boolean;
  readonly timestampSigned: boolean;
  readonly handshakes: readonly string[];
  /** Present exactly when `idSigned` or `timestampSigned` is false. */
  readonly residualRisk?: string;
}

/** What `preflight` sees: the request before verification (GET and OPTIONS handshakes have no body). */
export interface HandshakeRequest {
  /** Upper-case HTTP method, when the adapter knows it. */
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: HeadersInput;
  readonly body: Uint8Array;
}

type MaybePromise<T> = T | Promise<T>;

/**
 * Everything a receiver needs to know about a provider but its crypto (so it is the same object on
 * every runtime). Call order in a receiver:
 * `preflight` (unsigned handshakes: answer and stop when defined) → `scheme.verify` → `parseBody` →
 * `handshake` (signed handshakes: answer and stop when defined) → `eventId`/`eventType` → dedupe claim
 * (TTL `dedupeTtlMs`) → handler. Neither handshake touches the idempotency store or needs a handler.
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
  readonly declared: PresetDeclaration;
  readonly defaultMode: ReceiveMode;
  /**
   * The answer the provider expects for a delivery that was accepted (processed, duplicate, queued or
   * ignored), when it is not "any 2xx": Discord webhook events want an empty 204.
   */
  readonly acknowledgement?: HandshakeResponse;
  /**
   * Provider handshakes answered after verification and before dispatch (never for unverified input).
   * `options` are the scheme options (Zoom's answer is an HMAC with the secret; Twitch and Graph call
   * their hooks). May be async: callers `await` it.
   */
  handshake(
    headers: HeadersInput,
    body: unknown,
    options?: PresetSchemeOptions,
  ): MaybePromise<HandshakeResponse | undefined>;
  /**
   * Handshakes the provider sends unsigned, answered before verification: Meta's `hub.challenge` GET,
   * Microsoft Graph's `validationToken`, Okta's verification GET, the CloudEvents `OPTIONS`. Each checks
   * what the provider does send (verify token, shared secret) and is `undefined` for anything else.
   */
  readonly preflight?: (
    request: HandshakeRequest,
    options: PresetSchemeOptions,
  ) => MaybePromise<HandshakeResponse | undefined>;
}

/** A provider's descriptor with its signature scheme, bound to one runtime's crypto. */
export interface ProviderPreset<N extends PresetName = PresetName> extends ProviderDescriptor<N> {
  /** The preset's signature scheme (sign + verify). */
  scheme(options: PresetSchemeOptions): SignatureScheme;
}
