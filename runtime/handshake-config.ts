/**
 * Endpoint handshakes a contract declares (`x-gen-webhooks.handshakes`, docs/extensions.md): requests
 * a provider sends to prove the endpoint is there, answered by the receiver itself, never dispatched,
 * claimed or deduplicated. Types only, so `contract.ts` can carry them without importing the pipeline.
 */

/** Where a challenge or token is read: a JSON pointer into the JSON body, or a query parameter. */
export type HandshakeSource = { readonly body: string } | { readonly query: string };

/** Conditions that must all hold for the handshake to apply (exact values). */
export interface HandshakeMatch {
  /** JSON pointer into the body → the value it must have (`{ "/type": "url_verification" }`). */
  readonly body?: { readonly [pointer: string]: string | number | boolean };
  /** Query parameter → the value it must have (`{ "hub.mode": "subscribe" }`). */
  readonly query?: { readonly [name: string]: string };
}

/** Echo a challenge back: as the whole `text/plain` body, or as one field of a JSON object. */
export interface EchoHandshake {
  readonly kind: 'echo';
  /** Default `POST`. */
  readonly method?: 'GET' | 'POST';
  /**
   * Answered only after the request's signature verified (default for `POST`), or before
   * verification (`false`, default for `GET`: the provider does not sign it).
   */
  readonly signed?: boolean;
  readonly challenge: HandshakeSource;
  /**
   * Where the request carries a verify token the provider was given when the endpoint was set up
   * (Meta's `hub.verify_token`). It must equal the receiver's `verifyToken` option (compared in
   * constant time, which createReceiver then requires); otherwise the answer is 403, never the challenge.
   */
  readonly verifyToken?: HandshakeSource;
  readonly when?: HandshakeMatch;
  /** Default `{ kind: 'text' }`. */
  readonly respond?: { readonly kind: 'text' } | { readonly kind: 'json'; readonly field: string };
}

/** Answer `{ [tokenField]: token, [hashField]: HMAC(secret, token) }` (Zoom's URL validation shape). */
export interface HmacTokenHandshake {
  readonly kind: 'hmac-token';
  /**
   * Always answered after the request's signature verified: the answer is a MAC under the delivery
   * key, so `false` (before verification, a signing oracle) is refused with `invalid_config`.
   */
  readonly signed?: boolean;
  readonly token: HandshakeSource;
  readonly when?: HandshakeMatch;
  readonly algorithm: 'sha256' | 'sha512';
  readonly encoding: 'hex' | 'base64';
  readonly respond: { readonly tokenField: string; readonly hashField: string };
}

/** The CloudEvents HTTP webhook abuse-protection handshake: `OPTIONS` with `WebHook-Request-Origin`. */
export interface CloudEventsHandshake {
  readonly kind: 'cloudevents';
  /** Origins to allow (case-insensitive), or `'*'`. */
  readonly allowedOrigins: readonly string[] | '*';
  /** Sent as `WebHook-Allowed-Rate` (requests per minute); default `*`. */
  readonly allowedRate?: number;
}

export type HandshakeConfig = EchoHandshake | HmacTokenHandshake | CloudEventsHandshake;
