/**
 * Web Crypto (`globalThis.crypto.subtle`) signing for Workers, Deno, Bun and browsers: the same
 * schemes, inputs and errors as the node:crypto path, but async. Nothing here imports a `node:*`
 * module (directly or through its imports), so it bundles for any runtime.
 *
 * Exports:
 * - `hmacWeb(algorithm, key, ...parts)` → `Promise<Uint8Array>`
 * - `signStandardWebhookWeb(input)`, `verifyStandardWebhookWeb(input)`, `standardWebhooksWeb(options)`
 * - `hmacSchemeWeb(config, options)`, `createSignatureSchemeWeb(config, options)` (presets included)
 * - `generateStandardSecretWeb()`, `generateEd25519KeyPairWeb()`
 */
export { hmacSchemeWeb } from './hmac-scheme-web.js';
export { createSignatureSchemeWeb, type SchemeFactory } from './resolve-web.js';
export {
  generateEd25519KeyPairWeb,
  generateStandardSecretWeb,
  type StandardSignInputWeb,
  type StandardVerifyInputWeb,
  signStandardWebhookWeb,
  standardWebhooksWeb,
  verifyStandardWebhookWeb,
} from './standard-webhooks-web.js';
export { hmacWeb } from './web-crypto.js';
