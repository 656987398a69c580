/**
 * `testDelivery(contract | preset, event, payload, options)`: a correctly signed delivery for unit
 * tests of your handlers (docs/testing.md), signed with Web Crypto (the Web entry; no `node:*`).
 */

import type { Contract, EventMapBase, PresetName } from '../contract.js';
import { createSignatureSchemeWeb } from '../signing/resolve-web.js';
import { buildTestDelivery } from './build-test-delivery.js';
import type { TestDeliveryFunction } from './signature.js';
import type { TestDeliveryOptions } from './types.js';

// One implementation behind the overloads of `TestDeliveryFunction`.
export const testDelivery = ((
  target: Contract<EventMapBase> | PresetName,
  event: string,
  payload: unknown,
  options: TestDeliveryOptions,
) => buildTestDelivery(createSignatureSchemeWeb, target, event, payload, options)) as TestDeliveryFunction;
