/**
 * The provider map on node:crypto and `createPresetScheme` (what `SignatureConfig` kind `preset` resolves
 * to). The presets written on Web Crypto (Zoom, Twitch, Meta, …; asynchronous verify) come bound from
 * the catalog.
 */
import type { SignatureScheme } from '../signing/scheme.js';
import { bindProviders, getDescriptor, type Providers } from './catalog.js';
import { nodePresetCrypto } from './crypto-node.js';
import { discordScheme } from './discord.js';
import { githubScheme } from './github.js';
import { shopifyScheme } from './shopify.js';
import { slackScheme } from './slack.js';
import { stripeScheme } from './stripe.js';
import { svixScheme } from './svix.js';
import { twilioScheme } from './twilio.js';
import type { PresetName, PresetSchemeOptions, ProviderPreset } from './types.js';

export { isPresetName } from './catalog.js';

export const providers: Providers = /* @__PURE__ */ bindProviders(nodePresetCrypto, {
  stripe: stripeScheme,
  github: githubScheme,
  shopify: shopifyScheme,
  slack: slackScheme,
  twilio: twilioScheme,
  discord: discordScheme,
  svix: svixScheme,
});

export function getProvider<N extends PresetName>(name: N): ProviderPreset<N> {
  getDescriptor(name);
  return providers[name] as ProviderPreset<N>;
}

export function createPresetScheme(name: PresetName, options: PresetSchemeOptions): SignatureScheme {
  return getProvider(name).scheme(options);
}
