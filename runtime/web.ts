/**
 * `@gen-webhooks/runtime` for Web-standard runtimes (workerd, Deno, edge, browsers; the `.` export
 * resolves here under those conditions, and `./web` always): errors, contract types, envelope,
 * backoff, classification, Web Crypto signing, the receiver with Web Crypto schemes and every preset
 * but Twilio, the Web adapter and the stores that need no Node built-in. Nothing reachable from here
 * imports a `node:*` module (test/layering.test.ts enforces it). Names shared with the Node entry
 * have the same types; `createSender` throws (sending needs Node).
 */

export { lambdaHandler, toLambdaResult } from './adapters/lambda.js';
export type {
  LambdaEventV1,
  LambdaEventV2,
  LambdaHandlerOptions,
  LambdaHttpEvent,
  LambdaHttpHandler,
  LambdaHttpResult,
} from './adapters/lambda-types.js';
export type { ReceiverLike } from './adapters/types.js';
export { readRequestBody, toResponse, webHandler } from './adapters/web.js';
export * from './backoff.js';
export * from './classify.js';
export * from './contract.js';
export type {
  Sender,
  SenderOptions,
  SendNowOptions,
  SendNowResult,
  SendOptions,
  SendResult,
  ValidationMode,
} from './deliver/sender.js';
export { createSender } from './deliver/sender-web.js';
export * from './envelope.js';
export * from './errors.js';
export { getHeader } from './headers.js';
export { type OtelApiLike, type OtelTracingOptions, otelTracing } from './otel/otel-tracing.js';
export type {
  DeliveryPhase,
  DeliverySpan,
  PhaseSpan,
  ReceiveTracing,
  TraceAttributes,
} from './otel/types.js';
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
export { isPresetName } from './presets/catalog.js';
export { DISCORD_INTERACTION_TYPES } from './presets/discord.js';
export { hubspotSignedUri } from './presets/hubspot.js';
export { mailgunSignature } from './presets/mailgun.js';
export { plaidKeyFetcher } from './presets/plaid.js';
export {
  type DiscordWebhookEvent,
  type ProviderContractOptions,
  type ProviderEvents,
  providerContract,
  type SchemaMap,
  type SlackEventCallback,
  type StripeEvent,
} from './presets/provider-contract.js';
export { createPresetScheme, getProvider, providers } from './presets/registry-web.js';
export { slackRetryNumber } from './presets/slack.js';
export { twilioSigningString, withTwilioBodyHash } from './presets/twilio.js';
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
} from './presets/types.js';
export { type AckFastOptions, ackFastQueue } from './receive/ack-fast-mode.js';
export { contractHandshakes } from './receive/contract-handshakes.js';
export { createReceiverWith, DEFAULT_MAX_BODY_BYTES } from './receive/create-receiver.js';
export { decodeBody } from './receive/decode-body.js';
export { type EnvelopeReader, envelopeReader } from './receive/envelope-reader.js';
export type { DeliveryTiming, ReceiverHooks, ReceiverLogger } from './receive/hooks.js';
export { contentId, presetParts, type ReceiverParts, schemeParts } from './receive/parts.js';
export {
  asymmetricParts,
  hmacParts,
  standardWebhooksParts,
  unsignedParts,
} from './receive/parts-web.js';
export { receiveTracing } from './receive/receive-tracing.js';
export { receiverHooks } from './receive/receiver-hooks.js';
export { createParser, createReceiver } from './receive/receiver-web.js';
export { headerSelector } from './receive/select-header.js';
export { schemaSelector } from './receive/select-schema.js';
export type {
  AckFast,
  Checked,
  CommonReceiverOptions,
  DedupeOptions,
  DeliverySteps,
  DrainResult,
  ErrorContext,
  ExhaustiveHandlers,
  Handler,
  HandlerOptions,
  Handlers,
  HandlerTx,
  NodeHandler,
  ReceivedEvent,
  ReceiveObserver,
  ReceiveOutcome,
  ReceiveRequest,
  ReceiveResult,
  Receiver,
  ReceiverOptions,
  UnknownEvent,
  UnknownEventPolicy,
  ValidationIssue,
  ValidationPolicy,
  WorkerOptions,
} from './receive/types.js';
export {
  createParserWith,
  type ParsedEvent,
  type ParseInput,
  type Parser,
  type ParserOptions,
} from './receive/verify-and-parse.js';
export { DEFAULT_STOP_TIMEOUT_MS, type StopOptions, type StopResult } from './shutdown.js';
export type { PrivateKeyInput } from './signing/asymmetric-keys.js';
export {
  type AsymmetricConfig,
  type AsymmetricOptions,
  asymmetricScheme,
} from './signing/asymmetric-scheme.js';
export { decodeBase64, decodeHex, encodeBase64, encodeHex } from './signing/encoding.js';
export type { HmacConfig } from './signing/hmac-scheme-core.js';
export { createSignatureSchemeWeb as createSignatureScheme } from './signing/resolve-web.js';
export type {
  HeadersInput,
  PublicKeyInput,
  RawBody,
  SchemeOptions,
  Secret,
  SignatureScheme,
  SignInput,
  VerifiedDelivery,
  VerifyInput,
} from './signing/scheme.js';
export { type HeaderPrefix, SVIX_HEADERS, WEBHOOK_HEADERS } from './signing/standard-webhooks-core.js';
export * from './signing/web.js';
export { type MemoryStore, memoryStore } from './stores/memory.js';
export {
  type PostgresStore,
  type PostgresStoreOptions,
  type PostgresTx,
  type PostgresTxOf,
  postgresSchema,
  postgresStore,
} from './stores/postgres.js';
export { type RedisStoreOptions, redisStore } from './stores/redis.js';
export { RETRY_WINDOWS, type RetryWindowProvider } from './stores/retry-windows.js';
export { transactionWithDeadline } from './stores/transaction-deadline.js';
export {
  type ClaimOptions,
  type ClaimResult,
  type CompleteOptions,
  DEFAULT_LEASE_MS,
  DEFAULT_TTL_MS,
  type DequeueOptions,
  type EventQueue,
  type IdempotencyStore,
  type QueuedEvent,
  type ReleaseOptions,
  type TransactionalStore,
  type TransactionOptions,
  type TransactionResult,
} from './stores/types.js';
export type { TestDeliveryFunction } from './testing/signature.js';
export { testDelivery } from './testing/test-delivery.js';
export type {
  KeyPairPreset,
  KeyPairTestOptions,
  PresetTestOptions,
  SecretTestOptions,
  TestDelivery,
  TestDeliveryOptions,
} from './testing/types.js';
export {
  checkTimestamp,
  checkTolerance,
  DEFAULT_TOLERANCE_SECONDS,
  parseUnixSeconds,
} from './timestamp.js';
