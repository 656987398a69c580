/**
 * Each provider preset on node:crypto as its own export (`githubPreset`, …), so a generated receiver
 * imports its one preset (`presetParts(githubPreset)`). Twins of `bound-web.ts`.
 */
import { bindPreset } from './bind.js';
import { nodePresetCrypto as crypto } from './crypto-node.js';
import { discord, discordScheme } from './discord.js';
import { github, githubScheme } from './github.js';
import { shopify, shopifyScheme } from './shopify.js';
import { slack, slackScheme } from './slack.js';
import { stripe, stripeScheme } from './stripe.js';
import { svix, svixScheme } from './svix.js';
import { twilio, twilioScheme } from './twilio.js';
import type { ProviderPreset } from './types.js';

export const stripePreset: ProviderPreset<'stripe'> = /* @__PURE__ */ bindPreset(
  stripe,
  stripeScheme,
  crypto,
);
export const githubPreset: ProviderPreset<'github'> = /* @__PURE__ */ bindPreset(
  github,
  githubScheme,
  crypto,
);
export const shopifyPreset: ProviderPreset<'shopify'> = /* @__PURE__ */ bindPreset(
  shopify,
  shopifyScheme,
  crypto,
);
export const slackPreset: ProviderPreset<'slack'> = /* @__PURE__ */ bindPreset(slack, slackScheme, crypto);
export const twilioPreset: ProviderPreset<'twilio'> = /* @__PURE__ */ bindPreset(
  twilio,
  twilioScheme,
  crypto,
);
export const discordPreset: ProviderPreset<'discord'> = /* @__PURE__ */ bindPreset(
  discord,
  discordScheme,
  crypto,
);
export const svixPreset: ProviderPreset<'svix'> = /* @__PURE__ */ bindPreset(svix, svixScheme, crypto);

// Written on Web Crypto (asynchronous verify): the same objects on every runtime.
export * from './web-crypto-presets.js';
