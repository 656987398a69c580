/**
 * `@gen-webhooks/runtime`: imported by generated modules, usable alone. Drivers (better-sqlite3, pg,
 * ioredis) are never imported here: stores take the user's driver instance.
 */
export * from './adapters/index.js';
export * from './backoff.js';
export * from './classify.js';
export * from './contract.js';
export * from './deliver/index.js';
export * from './envelope.js';
export * from './errors.js';
export { getHeader } from './headers.js';
export * from './manage/index.js';
export * from './otel/index.js';
export * from './portal/index.js';
export * from './presets/index.js';
export * from './receive/index.js';
export * from './retention.js';
export { DEFAULT_STOP_TIMEOUT_MS, type StopOptions, type StopResult } from './shutdown.js';
export * from './signing/index.js';
export * from './stores/index.js';
export * from './testing/index.js';
