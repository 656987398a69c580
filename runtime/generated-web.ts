/**
 * `@gen-webhooks/runtime/generated` on Web-standard runtimes (the conditions that pick `web.ts` for
 * the root): the same names as `generated.ts` on Web Crypto, with the Web entry's `createSender`
 * (sending needs Node). Nothing reachable from here imports a `node:*` module.
 */
import { ackFastQueue as queue } from './receive/ack-fast-mode.js';
import type { AckFast } from './receive/types.js';

export type { Contract, StandardSchemaV1 } from './contract.js';
export type { Sender, SenderOptions } from './deliver/sender.js';
export { createSender } from './deliver/sender-web.js';
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
} from './presets/bound-web.js';
export { contractHandshakes } from './receive/contract-handshakes.js';
export { createReceiverWith } from './receive/create-receiver.js';
export { decodeBody } from './receive/decode-body.js';
export { envelopeReader } from './receive/envelope-reader.js';
export { contentId, presetParts, type ReceiverParts } from './receive/parts.js';
export {
  asymmetricParts,
  hmacParts,
  standardWebhooksParts,
  unsignedParts,
} from './receive/parts-web.js';
export { headerSelector } from './receive/select-header.js';
export { schemaSelector } from './receive/select-schema.js';
export type { Receiver, ReceiverOptions } from './receive/types.js';
export { createParserWith, type Parser, type ParserOptions } from './receive/verify-and-parse.js';
export type { PublicKeyInput } from './signing/scheme.js';
export { testDelivery } from './testing/test-delivery.js';
export type { KeyPairTestOptions, SecretTestOptions, TestDelivery } from './testing/types.js';

/**
 * Generated receivers call it without options; typed as such, the declarations stop here instead of
 * loading the ack-fast worker's (its options type names the queue worker's whole graph).
 */
export const ackFastQueue: () => AckFast = queue;
