/**
 * Each provider preset on Web Crypto as its own export (`githubPreset`, …), so a generated receiver
 * imports its one preset and a bundle carries no other (`presetParts(githubPreset)`). Twilio's scheme
 * needs node:querystring: here it is a clear `invalid_config`. Twins of `bound-node.ts`.
 */
import { WebhookError } from '../errors.js';
import { constantTimeEqual } from '../signing/encoding.js';
import { bindPreset } from './bind.js';
import type { PresetCrypto } from './crypto.js';
import { webPresetCrypto as crypto, webHmac } from './crypto-web.js';
import { discord, discordScheme } from './discord.js';
import { github, githubScheme } from './github.js';
import { shopify, shopifyScheme } from './shopify.js';
import { slack, slackScheme } from './slack.js';
import { stripe, stripeScheme } from './stripe.js';
import { svix, svixScheme } from './svix.js';
import { twilio } from './twilio.js';
import type { ProviderPreset } from './types.js';

const unused = (): never => {
  throw new WebhookError('invalid_config', 'this preset signs with HMAC only');
};

/** For the presets that sign with HMAC alone: their bundles carry no Ed25519 or Standard Webhooks code. */
const hmacCrypto: PresetCrypto = {
  hmac: webHmac,
  equal: constantTimeEqual,
  ed25519Verifier: unused,
  ed25519Signer: unused,
  standardWebhooks: unused,
};

export function twilioNeedsNode(): never {
  throw new WebhookError(
    'invalid_config',
    'twilio: this preset needs Node (node:querystring spells one of the URLs Twilio may have signed); use it from @gen-webhooks/runtime on Node',
  );
}

export const stripePreset: ProviderPreset<'stripe'> = /* @__PURE__ */ bindPreset(
  stripe,
  stripeScheme,
  hmacCrypto,
);
export const githubPreset: ProviderPreset<'github'> = /* @__PURE__ */ bindPreset(
  github,
  githubScheme,
  hmacCrypto,
);
export const shopifyPreset: ProviderPreset<'shopify'> = /* @__PURE__ */ bindPreset(
  shopify,
  shopifyScheme,
  hmacCrypto,
);
export const slackPreset: ProviderPreset<'slack'> = /* @__PURE__ */ bindPreset(
  slack,
  slackScheme,
  hmacCrypto,
);
export const twilioPreset: ProviderPreset<'twilio'> = /* @__PURE__ */ bindPreset(
  twilio,
  twilioNeedsNode,
  hmacCrypto,
);
export const discordPreset: ProviderPreset<'discord'> = /* @__PURE__ */ bindPreset(
  discord,
  discordScheme,
  crypto,
);
export const svixPreset: ProviderPreset<'svix'> = /* @__PURE__ */ bindPreset(svix, svixScheme, crypto);

// Written on Web Crypto (asynchronous verify): the same objects on every runtime.
export * from './web-crypto-presets.js';
