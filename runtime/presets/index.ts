/**
 * Provider presets: receive (and, for tests and `gen-webhooks send`, produce) Stripe, GitHub, Shopify,
 * Slack, Twilio, Discord and Standard Webhooks/Svix deliveries. Each preset is a `SignatureScheme`
 * plus the metadata a receiver needs (event id, event type, dedupe TTL, default mode).
 */
import { WebhookError } from '../errors.js';
import type { SchemeOptions, Secret, SignatureScheme } from '../signing/scheme.js';

export type PresetName = 'stripe' | 'github' | 'shopify' | 'slack' | 'twilio' | 'discord' | 'svix';

/** Provider-specific options; each preset reads only the fields documented for it. */
export interface PresetOptions {
  /** github: also accept the legacy `X-Hub-Signature: sha1=…` header (off by default). */
  readonly legacySha1?: boolean;
  /** twilio: HMAC algorithm of `X-Twilio-Signature`. Default `sha1`. */
  readonly algorithm?: 'sha1' | 'sha256';
  /**
   * twilio: the public URL Twilio called, when `VerifyInput.url` is not it (e.g. behind a proxy).
   * A function receives the request URL and returns the public one.
   */
  readonly publicUrl?: string | ((requestUrl: string | undefined) => string);
  /** discord: Ed25519 private key (32-byte seed, hex or bytes) used by `sign` (tests, `send`). */
  readonly signingKey?: Secret;
  /** shopify: reject deliveries whose `X-Shopify-Triggered-At` is older than this many seconds. */
  readonly maxAge?: number;
  /** svix: header family `sign` writes (`svix-*` or `webhook-*`); verification accepts both. */
  readonly headerPrefix?: 'svix' | 'webhook';
}

export function createPresetScheme(
  name: PresetName,
  _options: SchemeOptions & PresetOptions,
): SignatureScheme {
  throw new WebhookError('invalid_config', `Preset "${name}" is not implemented yet`);
}
