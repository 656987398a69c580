/**
 * `createSignatureScheme(config, options)`: the `SignatureConfig` of a contract → a `SignatureScheme`
 * (node:crypto implementations; `createSignatureSchemeWeb` in `web.ts` is the Web Crypto twin).
 */
import type { SignatureConfig } from '../contract.js';
import { WebhookError } from '../errors.js';
import { createPresetScheme } from '../presets/registry.js';
import type { PresetOptions } from '../presets/types.js';
import { asymmetricScheme } from './asymmetric-scheme.js';
import { hmacScheme } from './hmac-scheme.js';
import type { SchemeOptions, SignatureScheme } from './scheme.js';
import { standardWebhooks } from './standard-webhooks.js';

/** No signature: `sign` adds no header, `verify` accepts every request (use only behind other auth). */
export const noSignature: SignatureScheme = {
  name: 'none',
  sign: () => ({}),
  verify: () => ({}),
};

export function createSignatureScheme(
  config: SignatureConfig,
  options: SchemeOptions & PresetOptions,
): SignatureScheme {
  switch (config.kind) {
    case 'standard-webhooks':
      return standardWebhooks(options);
    case 'hmac':
      return hmacScheme(config, options);
    case 'asymmetric':
      return asymmetricScheme(config, options);
    case 'preset':
      return createPresetScheme(config.preset, options);
    case 'none':
      return noSignature;
    default:
      throw new WebhookError(
        'invalid_config',
        `Unknown signature kind ${JSON.stringify((config as { kind?: unknown }).kind)}`,
      );
  }
}
