/** Property-based checks of the receive pipeline: it answers every input with a well-formed result. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { delivery, petstore, SECRET } from '../../test/receiver/fixtures.js';
import { standardWebhookHeaders } from '../signing/standard-webhooks.js';
import { memoryStore } from '../stores/memory.js';
import { createReceiver } from './receiver-web.js';
import { validate } from './validate.js';

function decodePointer(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
}

describe('receive pipeline properties', () => {
  it('never throws and never answers 5xx for arbitrary signed JSON bodies', async () => {
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      handlers: { 'pet.adopted': () => {}, 'pet.listed': () => {} },
    });
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.string({ minLength: 1, maxLength: 20 }), async (value, id) => {
        const body = JSON.stringify(value);
        const headers = standardWebhookHeaders({
          id: `m_${id.replace(/[^\w]/g, 'x')}`,
          timestamp: Math.floor(Date.now() / 1000),
          body,
          secret: SECRET,
        });
        const result = await receiver.handle({ headers, body });
        expect([200, 400]).toContain(result.status);
        const parsed = JSON.parse(result.body) as { error?: { code: string } };
        if (result.status === 400) expect(parsed.error?.code).toMatch(/^invalid_(envelope|payload)$/);
      }),
      { numRuns: 200 },
    );
  });

  it('rejects arbitrary unsigned or tampered bytes with 4xx', async () => {
    const receiver = createReceiver(petstore, { secret: SECRET, store: memoryStore(), handlers: {} });
    const signed = delivery('pet.adopted', { petId: 'p', adopter: { name: 'n' } });
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 300 }), fc.boolean(), async (bytes, withHeaders) => {
        const result = await receiver.handle({ headers: withHeaders ? signed.headers : {}, body: bytes });
        expect([400, 401]).toContain(result.status);
        expect(result.outcome).toBe('rejected');
      }),
      { numRuns: 200 },
    );
  });

  it('processes every valid payload exactly once, with the data the handler receives equal to the input', async () => {
    const seen = new Map<string, unknown>();
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      handlers: {
        'pet.listed': (event) => {
          expect(seen.has(event.id)).toBe(false);
          seen.set(event.id, event.data);
        },
      },
    });
    await fc.assert(
      fc.asyncProperty(
        fc.record({ petId: fc.string(), price: fc.double({ min: 0, max: 1e9, noNaN: true }) }),
        async (data) => {
          const d = delivery('pet.listed', data);
          const first = await receiver.handle(d);
          expect(first.outcome).toBe('processed');
          expect(seen.get(first.id ?? '')).toEqual(data);
          expect((await receiver.handle(d)).outcome).toBe('duplicate');
        },
      ),
      { numRuns: 100 },
    );
  });

  it('reports issue paths as JSON pointers that decode back to the schema path', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.string({ maxLength: 8 }),
        async (a, b) => {
          const schema = z.object({ [a]: z.object({ [b]: z.number() }) });
          const result = await validate(schema, { [a]: { [b]: 'not a number' } }, '/data');
          expect(result.ok).toBe(false);
          expect(decodePointer(result.issues[0]?.path ?? '')).toEqual(['data', a, b]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
