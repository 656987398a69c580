/** The provider map and `createPresetScheme` (what `SignatureConfig` kind `preset` resolves to). */
import { WebhookError } from '../errors.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { azureEventGrid } from './azure-event-grid.js';
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
import type { PresetName, PresetSchemeOptions, ProviderPreset } from './types.js';
import { zoom } from './zoom.js';

export const providers: { readonly [N in PresetName]: ProviderPreset<N> } = {
  stripe,
  github,
  shopify,
  slack,
  twilio,
  discord,
  svix,
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
