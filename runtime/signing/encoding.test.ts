import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  concatBytes,
  constantTimeEqual,
  constantTimeEqualStrings,
  decodeBase64,
  decodeCanonicalHex,
  decodeHex,
  encodeBase64,
  encodeHex,
  isCanonicalBase64,
} from './encoding.js';

describe('encoding', () => {
  it('round-trips base64 and hex and matches Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        const base64 = encodeBase64(bytes);
        expect(base64).toBe(Buffer.from(bytes).toString('base64'));
        expect(decodeBase64(base64)).toEqual(bytes);
        expect(encodeHex(bytes)).toBe(Buffer.from(bytes).toString('hex'));
        expect(decodeHex(encodeHex(bytes))).toEqual(bytes);
        expect(decodeHex(encodeHex(bytes).toUpperCase())).toEqual(bytes);
      }),
    );
  });

  it('accepts only canonical padded base64', () => {
    for (const text of ['', 'AA==', 'AAA=', 'AAAA', 'g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=']) {
      expect(isCanonicalBase64(text), text).toBe(true);
    }
    for (const text of [
      'A',
      'AA',
      'AB==',
      'AAB=',
      'AA=A',
      '====',
      'A===',
      'AA-_',
      'AA AA',
      'AAA\u00e9',
      'AA==AA==',
    ]) {
      expect(isCanonicalBase64(text), text).toBe(false);
      expect(decodeBase64(text)).toBeUndefined();
    }
  });

  it('rejects odd or non-hex text', () => {
    for (const text of ['a', 'zz', '0x00', 'aa ']) expect(decodeHex(text)).toBeUndefined();
  });

  it('decodes any text exactly as the hex shape and Buffer say (canonical: lower case only)', () => {
    const reference = (text: string, shape: RegExp) =>
      shape.test(text) ? new Uint8Array(Buffer.from(text, 'hex')) : undefined;
    const hexish = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFgG x\u00e9\u0660') });
    fc.assert(
      fc.property(fc.oneof(hexish, fc.string()), (text) => {
        expect(decodeHex(text)).toEqual(reference(text, /^(?:[0-9a-fA-F]{2})*$/));
        expect(decodeCanonicalHex(text)).toEqual(reference(text, /^(?:[0-9a-f]{2})*$/));
      }),
      { numRuns: 2000 },
    );
  });

  it('compares bytes and strings', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1]), new Uint8Array([1, 0]))).toBe(false);
    expect(constantTimeEqualStrings('abc', 'abc')).toBe(true);
    expect(constantTimeEqualStrings('abc', 'abd')).toBe(false);
    expect(constantTimeEqualStrings('abc', 'ab')).toBe(false);
    expect(concatBytes(new Uint8Array([1]), new Uint8Array(0), new Uint8Array([2, 3]))).toEqual(
      new Uint8Array([1, 2, 3]),
    );
  });
});
