/**
 * The entry of a `--runtime inline` copy (the generator writes it as `runtime/index.ts`, followed by
 * the exports of the one signature part the contract uses, and copies only the runtime files
 * reachable from there): exactly what generated modules import — the receiver and the sender on
 * Node, and the types their files name. Everything else (other schemes and presets, stores, outboxes,
 * adapters, management) comes from `@gen-webhooks/runtime` when an app wants it.
 */
export type { Contract, StandardSchemaV1 } from './contract.js';
export type { Sender, SenderOptions } from './deliver/sender.js';
export { createSender } from './deliver/sender.js';
// The SDK package's smoke test signs fixtures and dedupes in memory with the inlined copy alone.
export { buildEnvelope } from './envelope.js';
export { isWebhookError, WebhookError } from './errors.js';
export { createReceiverWith } from './receive/create-receiver.js';
export type { ReceiverParts } from './receive/parts.js';
export type { Receiver, ReceiverOptions } from './receive/types.js';
export { createParserWith, type Parser, type ParserOptions } from './receive/verify-and-parse.js';
export type { PublicKeyInput } from './signing/scheme.js';
export { memoryStore } from './stores/memory.js';
export { testDelivery } from './testing/test-delivery-node.js';
export type { KeyPairTestOptions, SecretTestOptions, TestDelivery } from './testing/types.js';
