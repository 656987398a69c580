import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { identifyDelivery } from './delivery-identity.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('identifyDelivery', () => {
  it('prefers id headers, then the envelope id, then a body hash', () => {
    expect(identifyDelivery({ 'webhook-id': 'msg_1', 'webhook-type': 't' }, bytes('{"id":"x"}'))).toEqual({
      id: 'msg_1',
      idSource: 'webhook-id',
      type: 't',
    });
    expect(
      identifyDelivery({ 'x-github-delivery': 'g1', 'x-github-event': 'issues' }, bytes('{}')),
    ).toMatchObject({
      id: 'g1',
      type: 'issues',
    });
    expect(identifyDelivery({}, bytes('{"id":42,"event":"pet.adopted"}'))).toEqual({
      id: '42',
      idSource: 'body.id',
      type: 'pet.adopted',
    });
    expect(identifyDelivery({}, bytes('[1,2]')).idSource).toBe('body-hash');
  });

  it('groups identical bodies and separates different ones (no id anywhere)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 }), (a, b) => {
        const idA = identifyDelivery({}, a);
        expect(identifyDelivery({}, Uint8Array.from(a)).id).toBe(idA.id);
        if (Buffer.compare(Buffer.from(a), Buffer.from(b)) !== 0 && idA.idSource === 'body-hash') {
          const idB = identifyDelivery({}, b);
          if (idB.idSource === 'body-hash') expect(idB.id).not.toBe(idA.id);
        }
      }),
    );
  });
});
