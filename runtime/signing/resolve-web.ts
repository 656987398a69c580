/**
 * `createSignatureSchemeWeb(config, options)`: the twin of `resolve.ts` on Web Crypto, provider
 * presets included (bound to the Web preset crypto). Imports no `node:*` module.
 */
import type { SignatureConfig } from '../contract.js';
import { WebhookError } from '../errors.js';
import { createPresetScheme } from '../presets/registry-web.js';
import type { PresetOptions } from '../presets/types.js';
import { asymmetricScheme } from './asymmetric-scheme.js';
import { hmacSchemeWeb } from './hmac-scheme-web.js';
import type { SchemeOptions, SignatureScheme } from './scheme.js';
import { standardWebhooksWeb } from './standard-webhooks-web.js';

export type { SchemeFactory } from '../receive/parts.js';

const noSignatureWeb: SignatureScheme = { name: 'none', sign: async () => ({}), verify: async () => ({}) };

export function createSignatureSchemeWeb(
  config: SignatureConfig,
  options: SchemeOptions & PresetOptions,
): SignatureScheme {
  switch (config.kind) {
    case 'standard-webhooks':
      return standardWebhooksWeb(options);
    case 'hmac':
      return hmacSchemeWeb(config, options);
    case 'asymmetric':
      return asymmetricScheme(config, options);
    case 'preset':
      return createPresetScheme(config.preset, options);
    case 'none':
      return noSignatureWeb;
    default:
      throw new WebhookError(
        'invalid_config',
        `Unknown signature kind ${JSON.stringify((config as { kind?: unknown }).kind)}`,
      );
  }
}
