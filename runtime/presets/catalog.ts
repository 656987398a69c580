/**
 * The provider descriptors (crypto-free, the same on every runtime) and `bindProviders(crypto, schemes)`,
 * which gives each its scheme on one runtime's crypto. `registry.ts` binds node:crypto, `registry-web.ts`
 * Web Crypto; receivers and `providerContract` need only the descriptors. The presets written on Web
 * Crypto itself (available on Node 20 too) carry their scheme and are the same in both registries.
 */
import { WebhookError } from '../errors.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { azureEventGrid } from './azure-event-grid.js';
import type { PresetCrypto } from './crypto.js';
import { discord } from './discord.js';
import { github } from './github.js';
import { hubspot } from './hubspot.js';
import { intercom } from './intercom.js';
import { lemonSqueezy } from './lemon-squeezy.js';
import { linear } from './linear.js';
import { mailgun } from './mailgun.js';
import { meta } from './meta.js';
import { microsoftGraph } from './microsoft-graph.js';
import { okta } from './okta.js';
import { paddle } from './paddle.js';
import { plaid } from './plaid.js';
import { sendgrid } from './sendgrid.js';
import { shopify } from './shopify.js';
import { slack } from './slack.js';
import { square } from './square.js';
import { stripe } from './stripe.js';
import { svix } from './svix.js';
import { twilio } from './twilio.js';
import { twitch } from './twitch.js';
import type { PresetName, PresetSchemeOptions, ProviderDescriptor, ProviderPreset } from './types.js';
import { zoom } from './zoom.js';

/** The presets whose scheme is written against `PresetCrypto` (bound per runtime by the registries). */
type BoundName = 'stripe' | 'github' | 'shopify' | 'slack' | 'twilio' | 'discord' | 'svix';

/**
 * The presets written on Web Crypto directly (`web-crypto.ts`, asynchronous verify): the same object,
 * scheme included, in both registries.
 */
const webCryptoPresets: { readonly [N in Exclude<PresetName, BoundName>]: ProviderPreset<N> } = {
  zoom,
  twitch,
  meta,
  'microsoft-graph': microsoftGraph,
  'azure-event-grid': azureEventGrid,
  square,
  paddle,
  'lemon-squeezy': lemonSqueezy,
  linear,
  intercom,
  hubspot,
  mailgun,
  sendgrid,
  plaid,
  okta,
};

export type Providers = { readonly [N in PresetName]: ProviderPreset<N> };

const descriptors: { readonly [N in PresetName]: ProviderDescriptor<N> } = {
  stripe,
  github,
  shopify,
  slack,
  twilio,
  discord,
  svix,
  ...webCryptoPresets,
};

/** Each preset's scheme on a given crypto (the registries list them, so a bundle keeps only its own). */
export type PresetSchemes = {
  readonly [N in BoundName]: (options: PresetSchemeOptions, crypto: PresetCrypto) => SignatureScheme;
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
  const bind = <N extends BoundName>(name: N): ProviderPreset<N> => ({
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
    ...webCryptoPresets,
  };
}
