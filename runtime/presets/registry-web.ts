/**
 * The provider map on Web Crypto and `createPresetScheme` (no `node:*` import). Twilio's scheme needs
 * node:querystring: here it is a clear `invalid_config`, and its code stays out of Web bundles. The
 * presets written on Web Crypto (Zoom, Twitch, Meta, …) come bound from the catalog.
 */
import type { SignatureScheme } from '../signing/scheme.js';
import { twilioNeedsNode } from './bound-web.js';
import { bindProviders, getDescriptor, type Providers } from './catalog.js';
import { webPresetCrypto } from './crypto-web.js';
import { discordScheme } from './discord.js';
import { githubScheme } from './github.js';
import { shopifyScheme } from './shopify.js';
import { slackScheme } from './slack.js';
import { stripeScheme } from './stripe.js';
import { svixScheme } from './svix.js';
import type { PresetName, PresetSchemeOptions, ProviderPreset } from './types.js';

export { isPresetName } from './catalog.js';

export const providers: Providers = /* @__PURE__ */ bindProviders(webPresetCrypto, {
  stripe: stripeScheme,
  github: githubScheme,
  shopify: shopifyScheme,
  slack: slackScheme,
  twilio: twilioNeedsNode,
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
