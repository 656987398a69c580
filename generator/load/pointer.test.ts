import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendPointer,
  escapeToken,
  formatPointer,
  fragmentToPointer,
  lookup,
  parsePointer,
  pointerToFragment,
  unescapeToken,
} from './pointer.js';

const token = fc.oneof(
  fc.string(),
  fc.constantFrom('~', '/', '~1', '~0', '~01', '%', '%25', ' ', '#', 'a/b~c', ''),
  fc.string({ unit: fc.constantFrom('~', '/', '0', '1', 'a', '%', ' ') }),
);

describe('JSON pointer', () => {
  it('escapes and unescapes a token (RFC 6901 examples)', () => {
    expect(escapeToken('a/b')).toBe('a~1b');
    expect(escapeToken('m~n')).toBe('m~0n');
    expect(unescapeToken('~01')).toBe('~1');
    expect(formatPointer(['components', 'schemas', 'a/b', 0])).toBe('/components/schemas/a~1b/0');
    expect(parsePointer('')).toEqual([]);
    expect(parsePointer('/')).toEqual(['']);
    expect(parsePointer('no-slash')).toBeUndefined();
  });

  it('round-trips any token through escape/unescape', () => {
    fc.assert(fc.property(token, (t) => unescapeToken(escapeToken(t)) === t));
  });

  it('round-trips any token list through format/parse and through a URI fragment', () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 6 }), (tokens) => {
        const pointer = formatPointer(tokens);
        expect(parsePointer(pointer)).toEqual(tokens);
        const fragment = pointerToFragment(pointer);
        expect(fragment).not.toMatch(/[ #%](?![0-9A-F]{2})/);
        expect(fragmentToPointer(fragment)).toBe(pointer);
        expect(tokens.reduce<string>((p, t) => appendPointer(p, t), '')).toBe(pointer);
      }),
    );
  });

  it('rejects malformed percent-encoding in fragments', () => {
    expect(fragmentToPointer('/a%ZZ')).toBeUndefined();
    expect(fragmentToPointer('/My%20Pet')).toBe('/My Pet');
  });

  it('looks up objects and arrays, reporting where the path stops', () => {
    const doc = { a: [{ 'b/c': 1 }], '': { x: null } };
    expect(lookup(doc, ['a', '0', 'b/c'])).toEqual({ found: true, value: 1 });
    expect(lookup(doc, ['', 'x'])).toEqual({ found: true, value: null });
    expect(lookup(doc, ['a', '01'])).toEqual({ found: false, missingAt: 1 });
    expect(lookup(doc, ['a', '1'])).toEqual({ found: false, missingAt: 1 });
    expect(lookup(doc, ['a', '0', 'b/c', 'd'])).toEqual({ found: false, missingAt: 3 });
    expect(lookup(doc, ['toString'])).toEqual({ found: false, missingAt: 0 });
  });
});
