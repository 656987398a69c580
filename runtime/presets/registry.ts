/** The provider map and `createPresetScheme` (what `SignatureConfig` kind `preset` resolves to). */
import { WebhookError } from '../errors.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { discord } from './discord.js';
import { github } from './github.js';
import { shopify } from './shopify.js';
import { slack } from './slack.js';
import { stripe } from './stripe.js';
import { svix } from './svix.js';
import { twilio } from './twilio.js';
import type { PresetName, PresetSchemeOptions, ProviderPreset } from './types.js';

export const providers: { readonly [N in PresetName]: ProviderPreset<N> } = {
  stripe,
  github,
  shopify,
  slack,
  twilio,
  discord,
  svix,
};

export function isPresetName(value: unknown): value is PresetName {
  return typeof value === 'string' && Object.hasOwn(providers, value);
}

export function getProvider<N extends PresetName>(name: N): ProviderPreset<N> {
  if (!isPresetName(name)) {
    throw new WebhookError('invalid_config', `Unknown preset ${JSON.stringify(name)}`, {
      details: { expected: Object.keys(providers) },
    });
  }
  return providers[name];
}

export function createPresetScheme(name: PresetName, options: PresetSchemeOptions): SignatureScheme {
  return getProvider(name).scheme(options);
}
