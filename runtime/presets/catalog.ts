/**
 * The provider descriptors (crypto-free, the same on every runtime) and `bindProviders(crypto, schemes)`,
 * which gives each its scheme on one runtime's crypto. `registry.ts` binds node:crypto, `registry-web.ts`
 * Web Crypto; receivers and `providerContract` need only the descriptors.
 */
import { WebhookError } from '../errors.js';
import type { SignatureScheme } from '../signing/scheme.js';
import type { PresetCrypto } from './crypto.js';
import { discord } from './discord.js';
import { github } from './github.js';
import { shopify } from './shopify.js';
import { slack } from './slack.js';
import { stripe } from './stripe.js';
import { svix } from './svix.js';
import { twilio } from './twilio.js';
import type { PresetName, PresetSchemeOptions, ProviderDescriptor, ProviderPreset } from './types.js';

export type Providers = { readonly [N in PresetName]: ProviderPreset<N> };

const descriptors: { readonly [N in PresetName]: ProviderDescriptor<N> } = {
  stripe,
  github,
  shopify,
  slack,
  twilio,
  discord,
  svix,
};

/** Each preset's scheme on a given crypto (the registries list them, so a bundle keeps only its own). */
export type PresetSchemes = {
  readonly [N in PresetName]: (options: PresetSchemeOptions, crypto: PresetCrypto) => SignatureScheme;
};

export function isPresetName(value: unknown): value is PresetName {
  return typeof value === 'string' && Object.hasOwn(descriptors, value);
}

/** A provider's descriptor; `invalid_config` for a name that is not a preset. */
export function getDescriptor<N extends PresetName>(name: N): ProviderDescriptor<N> {
  if (!isPresetName(name)) {
    throw new WebhookError('invalid_config', `Unknown preset ${JSON.stringify(name)}`, {
      details: { expected: Object.keys(descriptors) },
    });
  }
  return descriptors[name] as ProviderDescriptor<N>;
}

export function bindProviders(crypto: PresetCrypto, schemes: PresetSchemes): Providers {
  const bind = <N extends PresetName>(name: N): ProviderPreset<N> => ({
    ...(descriptors[name] as ProviderDescriptor<N>),
    scheme: (options) => schemes[name](options, crypto),
  });
  return {
    stripe: bind('stripe'),
    github: bind('github'),
    shopify: bind('shopify'),
    slack: bind('slack'),
    twilio: bind('twilio'),
    discord: bind('discord'),
    svix: bind('svix'),
  };
}
