/**
 * Provider presets: receive (and, for tests and `gen-webhooks send`, produce) Stripe, GitHub, Shopify,
 * Slack, Twilio, Discord, Standard Webhooks/Svix, Zoom, Twitch, Meta, Microsoft Graph, Azure Event Grid,
 * Square, Paddle, Lemon Squeezy, Linear, Intercom, HubSpot, Mailgun, SendGrid, Plaid and Okta deliveries. Each preset is a `SignatureScheme`
 * plus what a receiver needs to know about the provider (`providers[name]`: event id and type rules,
 * dedupe TTL, default mode, handshakes, and the `Contract` parts).
 */
export {
  azureEventGridPreset,
  discordPreset,
  githubPreset,
  hubspotPreset,
  intercomPreset,
  lemonSqueezyPreset,
  linearPreset,
  mailgunPreset,
  metaPreset,
  microsoftGraphPreset,
  oktaPreset,
  paddlePreset,
  plaidPreset,
  sendgridPreset,
  shopifyPreset,
  slackPreset,
  squarePreset,
  stripePreset,
  svixPreset,
  twilioPreset,
  twitchPreset,
  zoomPreset,
} from './bound-node.js';
export { DISCORD_INTERACTION_TYPES } from './discord.js';
export { hubspotSignedUri } from './hubspot.js';
export { mailgunSignature } from './mailgun.js';
export { plaidKeyFetcher } from './plaid.js';
export {
  type DiscordWebhookEvent,
  type ProviderContractOptions,
  type ProviderEvents,
  providerContract,
  type SchemaMap,
  type SlackEventCallback,
  type StripeEvent,
} from './provider-contract.js';
export { createPresetScheme, getProvider, isPresetName, providers } from './registry.js';
export { slackRetryNumber } from './slack.js';
export { twilioSigningString, withTwilioBodyHash } from './twilio.js';
export type {
  HandshakeRequest,
  HandshakeResponse,
  PlaidKey,
  PresetDeclaration,
  PresetName,
  PresetOptions,
  PresetSchemeOptions,
  ProviderDescriptor,
  ProviderPreset,
  ReceiveMode,
} from './types.js';
