/** A small hand-written Petstore contract (zod schemas) and signed-delivery helpers for receiver tests. */
import { z } from 'zod';
import type { Contract } from '../../runtime/contract.js';
import { standardWebhookHeaders } from '../../runtime/signing/standard-webhooks.js';

export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

export interface PetAdopted {
  petId: string;
  adopter: { name: string; email?: string };
}
export interface PetListed {
  petId: string;
  price: number;
}
// A type alias: `EventMapBase` has a string index signature, which interfaces do not satisfy.
export type PetstoreEvents = {
  'pet.adopted': PetAdopted;
  'pet.listed': PetListed;
};

export const PetAdoptedSchema: z.ZodType<PetAdopted> = z.object({
  petId: z.string().min(1),
  adopter: z.object({ name: z.string(), email: z.string().optional() }),
});
export const PetListedSchema: z.ZodType<PetListed> = z.object({
  petId: z.string(),
  price: z.number().nonnegative(),
});

export const petstore: Contract<PetstoreEvents> = {
  name: 'petstore',
  version: '1.0.0',
  events: {
    'pet.adopted': { schema: PetAdoptedSchema },
    'pet.listed': { schema: PetListedSchema },
  },
  signature: { kind: 'standard-webhooks' },
  envelope: { kind: 'envelope' },
  selector: { kind: 'envelope-type' },
};

export interface Delivery {
  readonly headers: Record<string, string>;
  readonly body: string;
}

let counter = 0;

/** One signed Standard Webhooks delivery of an event (a fresh id unless given). */
export function delivery(
  type: string,
  data: unknown,
  options: { id?: string; timestamp?: number; secret?: string; extra?: Record<string, unknown> } = {},
): Delivery {
  const id = options.id ?? `msg_test_${process.pid}_${Date.now()}_${++counter}`;
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const body = JSON.stringify({
    id,
    type,
    timestamp: new Date(timestamp * 1000).toISOString(),
    data,
    ...options.extra,
  });
  const headers = {
    'content-type': 'application/json',
    ...standardWebhookHeaders({ id, timestamp, body, secret: options.secret ?? SECRET }),
  };
  return { headers, body };
}

export const adopted = (petId = 'rex'): PetAdopted => ({ petId, adopter: { name: 'Ada' } });
