import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GeneratorError } from '../errors.js';
import {
  listFlag,
  parseDuration,
  parseHeaderFlag,
  parseInteger,
  parseRate,
  parseToolArgs,
  parseUrl,
  requiredFlag,
} from './args.js';

function errorOf(fn: () => unknown): GeneratorError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GeneratorError) return error;
    throw error;
  }
  throw new Error('expected a GeneratorError');
}

describe('parseToolArgs', () => {
  const spec = {
    url: { type: 'string' },
    header: { type: 'string', multiple: true },
    json: { type: 'boolean' },
  } as const;

  it('parses flags and positionals', () => {
    const args = parseToolArgs(
      'send',
      ['c.yaml', 'evt', '--url', 'http://x', '--header', 'a:1', '--header', 'b:2', '--json'],
      spec,
    );
    expect(args.positionals).toEqual(['c.yaml', 'evt']);
    expect(listFlag(args, 'header')).toEqual(['a:1', 'b:2']);
    expect(args.values.json).toBe(true);
  });

  it('turns an unknown flag into one invalid_argument line', () => {
    const error = errorOf(() => parseToolArgs('send', ['--bogus'], spec));
    expect(error.code).toBe('invalid_argument');
    expect(error.format()).toMatch(
      /^send: unknown option '--bogus' \(expected the options listed by `gen-webhooks send --help`\)/,
    );
    expect(error.format()).not.toContain('\n');
  });

  it('rejects a string flag without a value', () => {
    expect(errorOf(() => parseToolArgs('send', ['--url'], spec)).message).toContain("'--url");
  });

  it('requires flags with a reason', () => {
    const args = parseToolArgs('send', [], spec);
    expect(errorOf(() => requiredFlag('send', args, 'url', 'where to send')).message).toBe(
      'send: --url is required (where to send)',
    );
  });
});

describe('value parsers', () => {
  it('parses durations', () => {
    expect(parseDuration('x', 'delay', '500ms')).toBe(500);
    expect(parseDuration('x', 'delay', '6s')).toBe(6000);
    expect(parseDuration('x', 'delay', '1.5m')).toBe(90_000);
    expect(parseDuration('x', 'delay', '2')).toBe(2000);
    expect(errorOf(() => parseDuration('x', 'delay', 'soon')).code).toBe('invalid_argument');
  });

  it('round-trips every whole duration in each unit', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100_000 }),
        fc.constantFrom(['ms', 1], ['s', 1000], ['m', 60_000]),
        (n, [unit, factor]) => {
          expect(parseDuration('x', 'd', `${n}${unit}`)).toBe(n * (factor as number));
        },
      ),
    );
  });

  it('parses rates, integers, headers and URLs', () => {
    expect(parseRate('x', 'fail-rate', '0.3')).toBe(0.3);
    expect(parseRate('x', 'fail-rate', '30%')).toBe(0.3);
    expect(errorOf(() => parseRate('x', 'fail-rate', '1.5')).code).toBe('invalid_argument');
    expect(errorOf(() => parseRate('x', 'fail-rate', '')).code).toBe('invalid_argument');
    expect(parseInteger('x', 'times', '10', 1, 100)).toBe(10);
    expect(errorOf(() => parseInteger('x', 'times', '0', 1, 100)).expected).toBe('an integer from 1 to 100');
    expect(errorOf(() => parseInteger('x', 'times', '1.5', 1, 100)).code).toBe('invalid_argument');
    expect(parseHeaderFlag('x', 'X-Tenant: acme:1')).toEqual(['X-Tenant', 'acme:1']);
    expect(parseHeaderFlag('x', 'a=b')).toEqual(['a', 'b']);
    expect(errorOf(() => parseHeaderFlag('x', 'no colon')).code).toBe('invalid_argument');
    expect(parseUrl('x', 'url', 'http://127.0.0.1:3000/hooks').port).toBe('3000');
    expect(errorOf(() => parseUrl('x', 'url', 'ftp://host')).message).toContain('http(s)');
    expect(errorOf(() => parseUrl('x', 'url', 'localhost:3000')).code).toBe('invalid_argument');
  });
});
