/** Types of `testDelivery` (no logic): options per signing kind, and what it returns. */
import type { PresetName } from '../contract.js';
import type { PresetOptions } from '../presets/types.js';
import type { PrivateKeyInput } from '../signing/asymmetric-keys.js';
import type { PublicKeyInput, Secret } from '../signing/scheme.js';

interface CommonTestOptions {
  /** Delivery id. Default: a new `msg_…` id. */
  readonly id?: string;
  /** Unix seconds the delivery is signed at. Default: now. */
  readonly timestamp?: number;
  /**
   * The URL the request goes to (default `http://localhost/webhooks`). Twilio, Square and HubSpot sign
   * it, and Azure Event Grid's secret travels in it: pass the receiver's real URL for those.
   */
  readonly url?: string;
  /** Extra request headers; they override generated ones of the same name. */
  readonly headers?: { readonly [name: string]: string };
}

/** Contracts signed with a shared secret (Standard Webhooks, HMAC, and most presets). */
export interface SecretTestOptions extends CommonTestOptions, Omit<PresetOptions, 'signingKey'> {
  /** The same secret the receiver under test is configured with. */
  readonly secret: Secret;
}

/**
 * Contracts signed with a key pair (the `asymmetric` kind; the Discord, SendGrid and Plaid presets,
 * whose real private key only the provider holds): a test key pair whose public half the receiver
 * under test is configured with.
 */
export interface KeyPairTestOptions extends CommonTestOptions, Omit<PresetOptions, 'signingKey'> {
  /** Signs the delivery: PEM or DER PKCS#8 (or a JWK); Discord: the 32-byte Ed25519 seed. */
  readonly privateKey: PrivateKeyInput;
  /** Discord: hex Ed25519 key; SendGrid: base64 SPKI; Plaid: the JWK `getKey` returns. */
  readonly publicKey: PublicKeyInput;
}

export type TestDeliveryOptions = SecretTestOptions | KeyPairTestOptions;

/** Presets whose provider signs with a private key it keeps. */
export type KeyPairPreset = 'discord' | 'sendgrid' | 'plaid';

/** The options a preset's deliveries are built with. */
export type PresetTestOptions<P extends PresetName> = P extends KeyPairPreset
  ? KeyPairTestOptions
  : SecretTestOptions;

/** A signed delivery, exactly as the contract's sender (or the provider) sends it. */
export interface TestDelivery {
  readonly event: string;
  readonly id: string;
  /** Unix seconds it was signed at. */
  readonly timestamp: number;
  readonly url: string;
  /** Content type, selector header and signature headers (lower-case names). */
  readonly headers: { readonly [name: string]: string };
  /** The exact bytes that were signed, as text. */
  readonly body: string;
  /** A new `POST` `Request` to `url` each call (a request body can be read once). */
  request(): Request;
}
