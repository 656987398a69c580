/**
 * Compile-only type tests of the generated `createParser().verifyAndParse()` (golden Petstore module):
 * the result is the event union narrowed on `type`. Checked by test/package/parser-types.test.ts and
 * `npm run typecheck`; every `@ts-expect-error` must be needed.
 */

import type { ParsedEvent, WebhookError } from '@gen-webhooks/runtime';
import {
  createParser,
  type Events,
  type PaymentFailedPayload,
  type PetAdoptedPayload,
} from '../golden/petstore-openapi/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const assertType = <T extends true>(_proof?: T): void => {};

const parser = createParser({ secret: 'whsec_test' });

// @ts-expect-error the options are the parser's: no handlers
createParser({ secret: 'whsec_test', handlers: {} });

export async function route(request: Request): Promise<Response> {
  const event = await parser.verifyAndParse(request);
  assertType<Equal<typeof event, ParsedEvent<Events>>>();
  assertType<Equal<typeof event.id, string>>();
  assertType<Equal<typeof event.timestamp, Date | undefined>>();
  switch (event.type) {
    case 'pet.adopted':
      assertType<Equal<typeof event.data, PetAdoptedPayload>>();
      void event.data.petId;
      break;
    case 'payment.failed':
      assertType<Equal<typeof event.data, PaymentFailedPayload>>();
      // @ts-expect-error a payment.failed payload has no petId
      void event.data.petId;
      break;
    // @ts-expect-error not an event of this contract
    case 'pet.vanished':
      break;
  }
  // Parts of a request work too: raw text or bytes, and headers.
  const parts = await parser.verifyAndParse({ body: '{}', headers: { 'webhook-id': 'x' } });
  if (parts.type === 'order.created') void parts.data;
  // @ts-expect-error a parsed JSON value is not a raw body
  await parser.verifyAndParse({ body: { id: 1 }, headers: {} });
  return new Response(null, { status: 204 });
}

// What it throws is a WebhookError with a status to answer.
export function status(error: WebhookError): number {
  return error.status;
}
