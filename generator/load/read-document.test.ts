import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GeneratorError } from '../errors.js';
import { locateJsonError } from './json-error.js';
import { parseDocumentText, syntaxOf } from './read-document.js';

function parseError(text: string, syntax: 'json' | 'yaml'): GeneratorError {
  try {
    parseDocumentText(text, '/tmp/doc', 'doc', syntax);
  } catch (error) {
    if (error instanceof GeneratorError) return error;
    throw error;
  }
  throw new Error('expected a GeneratorError');
}

describe('reading documents', () => {
  it('picks the syntax from the extension', () => {
    expect(syntaxOf('a/b.JSON')).toBe('json');
    expect(syntaxOf('https://x.example/s.json?v=1')).toBe('json');
    expect(syntaxOf('a.yml')).toBe('yaml');
    expect(syntaxOf('a.yaml')).toBe('yaml');
  });

  it('parses YAML 1.2: `no`/`on` stay strings, versions keep their source text', () => {
    const doc = parseDocumentText('a: no\nb: on\ninfo:\n  version: 1.10\n', '/x', 'x', 'yaml');
    expect(doc.value).toEqual({ a: 'no', b: 'on', info: { version: 1.1 } });
    expect(doc.rawScalar(['info', 'version'])).toBe('1.10');
    expect(doc.rawScalar(['missing'])).toBeUndefined();
  });

  it('reports YAML syntax errors with line and column', () => {
    const error = parseError('a: 1\nb: [1, 2\nc: d\n', 'yaml');
    expect(error.code).toBe('invalid_yaml');
    expect(error.file).toBe('doc');
    expect(error.message).toMatch(/line 3, column 1/);
  });

  it('rejects duplicate YAML keys', () => {
    const error = parseError('a: 1\na: 2\n', 'yaml');
    expect(error.code).toBe('invalid_yaml');
    expect(error.message).toMatch(/line 2, column 1.*unique/);
  });

  it('reports JSON syntax errors with line and column', () => {
    const error = parseError('{\n  "a": 1,\n  "b": }\n', 'json');
    expect(error.code).toBe('invalid_json');
    expect(error.message).toBe("invalid JSON at line 3, column 8: unexpected '}'");
    expect(parseError('{"a": 1', 'json').message).toMatch(
      /line 1, column 8: expected ',' or '}'.*end of input/,
    );
    expect(parseError('{"a": 1} x', 'json').message).toMatch(/line 1, column 10: unexpected 'x' after/);
  });

  it('tolerates a byte-order mark', () => {
    expect(parseDocumentText('\ufeff{"a":1}', '/x', 'x', 'json').value).toEqual({ a: 1 });
  });

  it('locates no error in any valid JSON, and agrees with JSON.parse on truncations', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, cut) => {
        const text = JSON.stringify(value, null, 1);
        expect(locateJsonError(text)).toBeUndefined();
        const truncated = text.slice(0, cut % (text.length + 1));
        let valid = true;
        try {
          JSON.parse(truncated);
        } catch {
          valid = false;
        }
        expect(locateJsonError(truncated) === undefined).toBe(valid);
      }),
    );
  });
});
