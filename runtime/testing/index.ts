/** Test helpers for users' own tests (Node entry): signed deliveries of a contract's or a preset's events. */
export type { TestDeliveryFunction } from './signature.js';
export { testDelivery } from './test-delivery-node.js';
export type {
  KeyPairPreset,
  KeyPairTestOptions,
  PresetTestOptions,
  SecretTestOptions,
  TestDelivery,
  TestDeliveryOptions,
} from './types.js';
