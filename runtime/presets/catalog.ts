/**
 * The provider descriptors (crypto-free, the same on every runtime) and `bindProviders(crypto)`, which
 * gives each its scheme on one runtime's crypto. `registry.ts` binds node:crypto, `registry-web.ts`
 * Web Crypto; receivers and `providerContract` need only the descriptors.
 */
import { WebhookError } from '../errors.js';
import type { SignatureScheme } from '../signing/scheme.js';
import type { PresetCrypto } from './crypto.js';
import { discord, discordScheme } from './discord.js';
import { github, githubScheme } from './github.js';
import { shopify, shopifyScheme } from './shopify.js';
import { slack, slackScheme } from './slack.js';
import { stripe, stripeScheme } from './stripe.js';
import { svix, svixScheme } from './svix.js';
import { twilio, twilioScheme } from './twilio.js';
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

type SchemeFactory = (options: PresetSchemeOptions, crypto: PresetCrypto) => SignatureScheme;

const schemes: { readonly [N in PresetName]: SchemeFactory } = {
  stripe: stripeScheme,
  github: githubScheme,
  shopify: shopifyScheme,
  slack: slackScheme,
  twilio: twilioScheme,
  discord: discordScheme,
  svix: svixScheme,
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

export function bindProviders(crypto: PresetCrypto): Providers {
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
