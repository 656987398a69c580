/**
 * The entry of a `--runtime inline` copy (the generator writes it as `runtime/index.ts` and copies
 * only the runtime files reachable from here): exactly what generated modules import — the receiver
 * and the sender on Node, and the types their files name. Everything else (stores, outboxes,
 * adapters, management) comes from `@gen-webhooks/runtime` when an app wants it.
 */
export type { Contract, StandardSchemaV1 } from './contract.js';
export type { Sender, SenderOptions } from './deliver/sender.js';
export { createSender } from './deliver/sender.js';
// The SDK package's smoke test signs fixtures and dedupes in memory with the inlined copy alone.
export { buildEnvelope } from './envelope.js';
export { createParser } from './receive/parser-node.js';
export { createReceiver } from './receive/receiver-node.js';
export type { Receiver, ReceiverOptions } from './receive/types.js';
export type { Parser, ParserOptions } from './receive/verify-and-parse.js';
export { createSignatureScheme } from './signing/resolve.js';
export type { PublicKeyInput } from './signing/scheme.js';
export { memoryStore } from './stores/memory.js';
