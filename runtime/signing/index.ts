/**
 * Signing: Standard Webhooks (HMAC `v1` and Ed25519 `v1a`), the simple HMAC scheme, and the scheme
 * resolver. Presets import the concrete files (`hmac.ts`, `standard-webhooks.ts`, …), never this barrel.
 */

export {
  checkTimestamp,
  checkTolerance,
  DEFAULT_TOLERANCE_SECONDS,
  parseUnixSeconds,
  type Tolerance,
  type ToleranceWindow,
  toleranceWindow,
} from '../timestamp.js';
export type { PrivateKeyInput } from './asymmetric-keys.js';
export { type AsymmetricConfig, type AsymmetricOptions, asymmetricScheme } from './asymmetric-scheme.js';
export { generateEd25519KeyPair } from './ed25519.js';
export { decodeBase64, decodeHex, encodeBase64, encodeHex } from './encoding.js';
export { type HmacAlgorithm, hmac, timingSafeEqualBytes } from './hmac.js';
export { hmacScheme } from './hmac-scheme.js';
export type { HmacConfig } from './hmac-scheme-core.js';
export { createSignatureScheme, noSignature } from './resolve.js';
export type {
  HeadersInput,
  PublicKeyInput,
  RawBody,
  SchemeOptions,
  Secret,
  SignatureScheme,
  SignInput,
  VerifiedDelivery,
  VerifyInput,
} from './scheme.js';
export {
  generateStandardSecret,
  type StandardSignInput,
  type StandardVerifyInput,
  type StandardWebhooksOptions,
  signStandardWebhook,
  standardWebhookHeaders,
  standardWebhooks,
  verifyStandardWebhook,
} from './standard-webhooks.js';
export { type HeaderPrefix, SVIX_HEADERS, WEBHOOK_HEADERS } from './standard-webhooks-core.js';
export {
  createSignatureSchemeWeb,
  generateEd25519KeyPairWeb,
  generateStandardSecretWeb,
  hmacSchemeWeb,
  hmacWeb,
  signStandardWebhookWeb,
  standardWebhooksWeb,
  verifyStandardWebhookWeb,
} from './web.js';
