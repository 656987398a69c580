/**
 * `@gen-webhooks/runtime/generated` on Node (bun/node/default conditions): exactly what generated
 * modules import and nothing else, so a consumer's tsc loads a few runtime declarations instead of
 * the root entry's whole graph (stores, outboxes, adapters, management). Twin of `generated-web.ts`.
 */
import { ackFastQueue as queue } from './receive/ack-fast-mode.js';
import type { AckFast } from './receive/types.js';

export type { Contract, StandardSchemaV1 } from './contract.js';
export { createSender, type Sender, type SenderOptions } from './deliver/sender.js';
export { isWebhookError, WebhookError } from './errors.js';
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
} from './presets/bound-node.js';
export { contractHandshakes } from './receive/contract-handshakes.js';
export { createReceiverWith } from './receive/create-receiver.js';
export { decodeBody } from './receive/decode-body.js';
export { envelopeReader } from './receive/envelope-reader.js';
export { contentId, type ReceiverParts } from './receive/parts.js';
export {
  asymmetricParts,
  hmacParts,
  presetParts,
  standardWebhooksParts,
  unsignedParts,
} from './receive/parts-node.js';
export { headerSelector } from './receive/select-header.js';
export { schemaSelector } from './receive/select-schema.js';
export type { Receiver, ReceiverOptions } from './receive/types.js';
export { createParserWith, type Parser, type ParserOptions } from './receive/verify-and-parse.js';
export type { PublicKeyInput } from './signing/scheme.js';
export { testDelivery } from './testing/test-delivery-node.js';
export type { KeyPairTestOptions, SecretTestOptions, TestDelivery } from './testing/types.js';

/**
 * Generated receivers call it without options; typed as such, the declarations stop here instead of
 * loading the ack-fast worker's (its options type names the queue worker's whole graph).
 */
export const ackFastQueue: () => AckFast = queue;
