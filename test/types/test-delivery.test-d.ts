/**
 * Compile-only type tests of `testDelivery`: the generated Petstore module's (typed per event) and
 * the runtime's (per contract, per preset: key-pair presets take a key pair). Checked by
 * test/generate-types.test.ts; every `@ts-expect-error` must be needed.
 */
import { providerContract, testDelivery as runtimeTestDelivery } from '@gen-webhooks/runtime';
import { z } from 'zod';
import { fixtures } from '../golden/petstore-openapi/fixtures.js';
import {
  contract,
  isWebhookError,
  type TestDelivery,
  testDelivery,
} from '../golden/petstore-openapi/index.js';

const options = { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };

export async function generated(): Promise<TestDelivery[]> {
  const adopted = await testDelivery('pet.adopted', fixtures['pet.adopted'], options);
  const fixture = await testDelivery('pet.adopted', options);
  const request: Request = adopted.request();
  void request;
  // @ts-expect-error not an event of the contract
  await testDelivery('pet.eaten', options);
  // @ts-expect-error a payload of another event
  await testDelivery('pet.adopted', fixtures['order.created'], options);
  // @ts-expect-error a secret is required
  await testDelivery('pet.adopted', fixtures['pet.adopted'], {});
  const error: unknown = new Error('x');
  if (isWebhookError(error)) {
    const status: number = error.status;
    void status;
  }
  return [adopted, fixture];
}

export async function runtime(): Promise<void> {
  await runtimeTestDelivery(contract, 'pet.adopted', fixtures['pet.adopted'], options);
  // @ts-expect-error not an event of the contract
  await runtimeTestDelivery(contract, 'pet.eaten', fixtures['pet.adopted'], options);
  // @ts-expect-error a payload of another event
  await runtimeTestDelivery(contract, 'pet.adopted', fixtures['order.created'], options);

  const stripe = providerContract('stripe', { 'invoice.paid': z.object({ id: z.string() }) });
  await runtimeTestDelivery(
    stripe,
    'invoice.paid',
    { id: 'evt_1', type: 'invoice.paid', created: 1, data: { object: { id: 'in_1' } } },
    { secret: 'whsec_x' },
  );
  await runtimeTestDelivery('stripe', 'invoice.paid', {}, { secret: 'whsec_x' });
  await runtimeTestDelivery(
    'discord',
    'APPLICATION_AUTHORIZED',
    {},
    { privateKey: 'seed', publicKey: 'hex' },
  );
  // @ts-expect-error Discord signs with a key pair, not a shared secret
  await runtimeTestDelivery('discord', 'APPLICATION_AUTHORIZED', {}, { secret: 'x' });
  // @ts-expect-error not a preset
  await runtimeTestDelivery('stripey', 'invoice.paid', {}, { secret: 'x' });
}
