/**
 * The send benches' contract: one `order.paid` event with a 270-byte payload, Standard Webhooks
 * signing, and the URL policy that lets the workers call the receiver on 127.0.0.1.
 */
import { z } from 'zod';
import { defineContract } from '../../runtime/contract.js';

export type Events = { 'order.paid': { orderId: string; amount: number; currency: string; note: string } };

export const contract = defineContract<Events>({
  name: 'bench',
  events: {
    'order.paid': {
      schema: z.object({ orderId: z.string(), amount: z.number(), currency: z.string(), note: z.string() }),
    },
  },
  signature: { kind: 'standard-webhooks' },
  envelope: { kind: 'envelope' },
  selector: { kind: 'envelope-type' },
});

export const payload = (i: number): Events['order.paid'] => ({
  orderId: `ord_${i}`,
  amount: 4200,
  currency: 'EUR',
  note: 'x'.repeat(200),
});

export const LOCAL = { allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] };
