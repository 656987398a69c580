import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebhookError } from './errors.js';
import { createIdGenerator, idTime, newMessageId } from './id.js';

describe('message ids', () => {
  it('look like msg_ + 26 Crockford base32 characters and encode their time', () => {
    const id = createIdGenerator({ now: () => 1_700_000_000_123 })();
    expect(id).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(idTime(id)).toBe(1_700_000_000_123);
    expect(newMessageId()).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(idTime('evt_123')).toBeUndefined();
    expect(idTime('msg_ILOU000000000000000000000')).toBeUndefined();
  });

  it('are deterministic with an injected clock and RNG', () => {
    const make = () => createIdGenerator({ now: () => 0, random: (n) => new Uint8Array(n).fill(0) });
    expect(make()()).toBe('msg_00000000000000000000000000');
    const generate = make();
    generate();
    expect(generate()).toBe('msg_00000000000000000000000001');
  });

  it('sort by time and are strictly increasing within a millisecond and when the clock steps back', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2 ** 40 }), { minLength: 2, maxLength: 50 }),
        (times) => {
          let i = 0;
          const generate = createIdGenerator({ now: () => times[i++ % times.length] ?? 0 });
          const ids = times.map(() => generate());
          expect([...ids].sort()).toEqual(ids);
          expect(new Set(ids).size).toBe(ids.length);
        },
      ),
    );
    const clock = { t: 5000 };
    const generate = createIdGenerator({ now: () => clock.t });
    const a = generate();
    clock.t = 9000;
    const b = generate();
    expect(a < b).toBe(true);
    expect((idTime(b) ?? 0) - (idTime(a) ?? 0)).toBe(4000);
  });

  it('carries into the next millisecond when the random part overflows', () => {
    const generate = createIdGenerator({
      now: () => 10,
      random: (n) => new Uint8Array(n).fill(255),
      prefix: 'evt_',
    });
    const first = generate();
    const second = generate();
    expect(first < second).toBe(true);
    expect(idTime(second, 'evt_')).toBe(11);
  });

  it('rejects bad clocks and random sources', () => {
    expect(() => createIdGenerator({ now: () => -1 })()).toThrow(WebhookError);
    expect(() => createIdGenerator({ random: () => new Uint8Array(3) })()).toThrow(WebhookError);
  });
});
