/** `testDelivery` on node:crypto (the Node entry): the same builder, with Twilio's scheme too. */

import type { Contract, EventMapBase, PresetName } from '../contract.js';
import { createSignatureScheme } from '../signing/resolve.js';
import { buildTestDelivery } from './build-test-delivery.js';
import type { TestDeliveryFunction } from './signature.js';
import type { TestDeliveryOptions } from './types.js';

// One implementation behind the overloads of `TestDeliveryFunction`.
export const testDelivery = ((
  target: Contract<EventMapBase> | PresetName,
  event: string,
  payload: unknown,
  options: TestDeliveryOptions,
) => buildTestDelivery(createSignatureScheme, target, event, payload, options)) as TestDeliveryFunction;
