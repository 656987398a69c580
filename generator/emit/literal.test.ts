import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { docComment, literal, quote } from './literal.js';

const evaluate = (text: string): unknown => new Function(`return (${text});`)();

describe('literal', () => {
  it('evaluates back to the same JSON value (property)', () => {
    const key = fc.oneof(
      fc.string(),
      fc.constantFrom('__proto__', 'constructor', 'a-b', '+1', "it's", '\u2028'),
    );
    const json = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.array(fc.tuple(key, tie('value')), { maxLength: 4 }).map((entries) => {
          const out: Record<string, unknown> = {};
          for (const [k, v] of entries)
            Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
          return out;
        }),
      ),
    }));
    fc.assert(
      fc.property(json.value, (value) => {
        const text = literal(value, '', 60);
        expect(JSON.stringify(evaluate(text))).toBe(JSON.stringify(value));
        expect(text).not.toMatch(/[ \t]\n/);
      }),
      { numRuns: 300 },
    );
  });

  it('quotes strings that would end or break a one-line literal', () => {
    expect(quote("it's \\ \n\u2028")).toBe("'it\\'s \\\\ \\n\\u2028'");
    expect(literal({ 'a-b': 1, ok: [1, 2] })).toBe("{ 'a-b': 1, ok: [1, 2] }");
  });

  it('keeps comments closed whatever the description says', () => {
    expect(docComment('a */ b')).toBe('/** a *\\/ b */\n');
    expect(docComment('one\ntwo', '  ', ['@deprecated'])).toBe(
      '  /**\n   * one\n   * two\n   * @deprecated\n   */\n',
    );
    expect(docComment(undefined)).toBe('');
  });
});
