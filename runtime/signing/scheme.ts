/**
 * The one interface every signature scheme implements: Standard Webhooks, the simple HMAC scheme and
 * every provider preset. Receivers call `verify`, senders call `sign`. Both may be sync or async
 * (node:crypto is sync, Web Crypto is async); callers always `await`.
 */
import type { Tolerance } from '../timestamp.js';

/** Raw request body. Verification works on these bytes only, never on re-serialised JSON. */
export type RawBody = string | Uint8Array | ArrayBuffer;

/** Request headers: a Fetch `Headers`, or a plain record as Node's `IncomingMessage.headers` gives. */
export type HeadersInput = Headers | { readonly [name: string]: string | readonly string[] | undefined };

/**
 * A public key of the asymmetric scheme: PEM (`-----BEGIN PUBLIC KEY-----`), base64 SPKI DER, a JWK
 * (object or JSON text), or DER bytes; Ed25519 also as its 32 raw bytes (hex, base64 or bytes).
 */
export type PublicKeyInput = string | Uint8Array | JsonWebKey;

/** A secret: a `whsec_…`/provider string, or raw key bytes. Arrays mean rotation (any may match). */
export type Secret = string | Uint8Array;

export interface VerifyInput {
  readonly headers: HeadersInput;
  readonly body: RawBody;
  /** Full public URL of the request (Twilio signs it). */
  readonly url?: string;
}

/** What a successful verification learned from the transport. */
export interface VerifiedDelivery {
  /**
   * Delivery/event id from a header, if the scheme has one. Standard Webhooks (`webhook-id`) and the HMAC
   * scheme (an `idHeader` inside `signedContent`) report only signed ids; the GitHub, Shopify and Twilio
   * presets report their provider's delivery id, which that provider does not sign (docs/presets.md).
   */
  readonly id?: string;
  /** Unix seconds from a signed timestamp header, if the scheme has one. */
  readonly timestamp?: number;
}

export interface SignInput {
  readonly id: string;
  /** Unix seconds. */
  readonly timestamp: number;
  readonly body: RawBody;
  readonly url?: string;
}

export interface SignatureScheme {
  /** e.g. `standard-webhooks`, `hmac`, `stripe`. */
  readonly name: string;
  /** Returns the headers to add to the request (signature, and id/timestamp headers where the scheme has them). */
  sign(input: SignInput): Record<string, string> | Promise<Record<string, string>>;
  /** Throws `WebhookError` (and nothing else) when the delivery is not authentic or outside the window. */
  verify(input: VerifyInput): VerifiedDelivery | Promise<VerifiedDelivery>;
}

/** The verifying half of a scheme: what a receiver or parser calls (its parts build only this). */
export type SchemeVerifier = Pick<SignatureScheme, 'name' | 'verify'>;

export interface SchemeOptions {
  /** One secret, or several during a rotation (signing uses all of them; verification accepts any). */
  readonly secret: Secret | readonly Secret[];
  /**
   * Replay window in seconds: one number for both directions, or `{ past, future }` (either may be
   * `Infinity`) to match a provider library exactly. Default 300 both ways (some presets use their
   * provider's documented window instead: docs/presets.md).
   */
  readonly tolerance?: Tolerance;
  /** Clock in milliseconds since the epoch (injectable for tests). Default `Date.now`. */
  readonly now?: () => number;
  /**
   * The sender's public key(s) for a contract signed with a key pair (`SignatureConfig` kind
   * `asymmetric`); `secret` is then the private key, needed only to sign.
   */
  readonly publicKey?: PublicKeyInput | readonly PublicKeyInput[];
}
