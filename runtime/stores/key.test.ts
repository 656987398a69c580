import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../signing/sha256.js';
import { MAX_KEY_BYTES, storeKey } from './key.js';

describe('sha256Hex', () => {
  it('agrees with node:crypto on any bytes, padding boundaries included', () => {
    const lengths = fc.oneof(
      fc.integer({ min: 0, max: 300 }),
      fc.constantFrom(55, 56, 63, 64, 119, 120, 128),
    );
    fc.assert(
      fc.property(
        lengths.chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
        (bytes) => {
          expect(sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('storeKey', () => {
  it('keeps keys up to MAX_KEY_BYTES of UTF-8 and digests longer ones to 71 bytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), (key) => {
        const bytes = Buffer.byteLength(key, 'utf8');
        const stored = storeKey(key);
        if (bytes <= MAX_KEY_BYTES) expect(stored).toBe(key);
        else expect(stored).toBe(`sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`);
      }),
    );
    expect(storeKey('é'.repeat(100))).toBe('é'.repeat(100));
    expect(storeKey('é'.repeat(101))).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
