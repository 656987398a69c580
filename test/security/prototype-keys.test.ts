/**
 * Threat: an event name that is also a member of Object.prototype (`constructor`, `toString`,
 * `__proto__`…) reaching a plain-object lookup in the runtime.
 *
 * Attack: a sender called from JavaScript with `send('constructor', …)`, or a delivery whose type is
 * a contract event named `constructor` that has no handler. A plain `events[type]` / `handlers[type]`
 * finds Object.prototype's member: the sender skipped its unknown-event check (and validation), and
 * the receiver ran `Object` as the handler and answered 200 processed.
 *
 * What must hold: the runtime looks up events, handlers and per-event policies by own keys only — an
 * unknown name is `unknown_event`, an event without a handler is answered `ignored`.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineContract } from '../../runtime/contract.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { isWebhookError } from '../../runtime/errors.js';
import { createReceiver } from '../../runtime/receive/receiver-web.js';
import { standardWebhookHeaders } from '../../runtime/signing/standard-webhooks.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

type Events = { constructor: { n: number }; 'pet.created': { n: number } };
const contract = defineContract<Events>({
  name: 'proto',
  events: {
    constructor: { schema: z.object({ n: z.number() }) },
    'pet.created': { schema: z.object({ n: z.number() }) },
  },
  signature: { kind: 'standard-webhooks' },
  envelope: { kind: 'envelope' },
  selector: { kind: 'envelope-type' },
});

type OnlyPets = { 'pet.created': { n: number } };
const pets = defineContract<OnlyPets>({
  name: 'pets',
  events: { 'pet.created': { schema: z.object({ n: z.number() }) } },
  signature: { kind: 'standard-webhooks' },
  envelope: { kind: 'envelope' },
  selector: { kind: 'envelope-type' },
});

describe('Object.prototype members are never events, handlers or policies', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__'])(
    'sendNow(%j) on a contract without that event is unknown_event',
    async (name) => {
      const sender = createSender(pets, {});
      const error = await sender
        .sendNow(name as never, { n: 1 } as never, { url: 'https://example.invalid/h', secret: SECRET })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(isWebhookError(error) && error.code).toBe('unknown_event');
    },
  );

  it('a delivery of an event named constructor without a handler is ignored, not run through Object', async () => {
    let ran = 0;
    const receiver = createReceiver(contract, {
      secret: SECRET,
      dedupe: false,
      // A plain object literal, so `constructor` is inherited from Object.prototype as in user code.
      handlers: {
        'pet.created': () => {
          ran++;
        },
      } as never,
    });
    const body = JSON.stringify({
      id: 'msg_proto_1',
      type: 'constructor',
      timestamp: new Date().toISOString(),
      data: { n: 1 },
    });
    const headers = standardWebhookHeaders({
      id: 'msg_proto_1',
      timestamp: Math.floor(Date.now() / 1000),
      body,
      secret: SECRET,
    });
    const result = await receiver.handle({ headers, body });
    expect(result.status).toBe(200);
    expect(result.outcome).toBe('ignored');
    expect(ran).toBe(0);
  });
});
