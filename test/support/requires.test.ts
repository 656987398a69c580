/** The CI no-skip rule: a missing requirement skips locally (with a reason) and fails under CI=true. */
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { corpusDir, isCi, missingBinary, missingCorpus, missingEnv, missingPath } from './requires.js';

const here = import.meta.dirname;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('missingEnv', () => {
  it('is false when the variable is set, CI or not', () => {
    expect(missingEnv('DATABASE_URL', 'pg tests', { DATABASE_URL: 'postgres://x' })).toBe(false);
    expect(missingEnv('DATABASE_URL', 'pg tests', { DATABASE_URL: 'postgres://x', CI: 'true' })).toBe(false);
  });

  it('locally: skips and says why (unset or empty)', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(missingEnv('DATABASE_URL', 'the pg tests', {})).toBe(true);
    expect(missingEnv('REDIS_URL', 'the redis tests', { REDIS_URL: '' })).toBe(true);
    expect(missingEnv('REDIS_URL', 'the redis tests', { REDIS_URL: '', CI: 'false' })).toBe(true);
    expect(warn).toHaveBeenCalledWith(
      'skipping the pg tests: DATABASE_URL is not set (this needs PostgreSQL)',
    );
    expect(warn).toHaveBeenCalledWith('skipping the redis tests: REDIS_URL is not set (this needs Redis)');
  });

  it('under CI=true: throws naming the variable, the service and the tests', () => {
    expect(() => missingEnv('DATABASE_URL', 'the pg tests', { CI: 'true' })).toThrow(
      'CI=true: DATABASE_URL is not set (this needs PostgreSQL); the pg tests cannot be skipped in CI',
    );
    expect(() => missingEnv('REDIS_URL', 'the redis tests', { CI: '1', REDIS_URL: '' })).toThrow(
      /REDIS_URL is not set \(this needs Redis\)/,
    );
  });
});

describe('missingBinary', () => {
  it('is false for a binary that runs (node itself)', () => {
    expect(missingBinary(process.execPath, 'node tests', ['--version'], { CI: 'true' })).toBe(false);
  });

  it('skips locally and throws under CI for one that does not', () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const absent = 'gw-no-such-binary-4711';
    expect(missingBinary(absent, 'the TLS tests', ['version'], {})).toBe(true);
    expect(() => missingBinary(absent, 'the TLS tests', ['version'], { CI: 'true' })).toThrow(
      `CI=true: the ${absent} CLI is not installed (\`${absent} version\` failed); the TLS tests cannot be skipped in CI`,
    );
  });
});

describe('missingPath and missingCorpus', () => {
  it('is false for a path that exists', () => {
    expect(missingPath(here, 'x', { CI: 'true' })).toBe(false);
    expect(missingCorpus('x', 'requires.ts', { CI: 'true', CORPUS_DIR: here })).toBe(false);
  });

  it('skips locally and throws under CI for one that does not', () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const gone = path.join(here, 'no-such-folder');
    expect(missingPath(gone, 'x', {})).toBe(true);
    expect(() => missingPath(gone, 'the x tests', { CI: 'true' })).toThrow(`CI=true: ${gone} is not present`);
    expect(missingCorpus('the corpus tests', '', { CORPUS_DIR: gone })).toBe(true);
    expect(() => missingCorpus('the corpus tests', 'a/b.json', { CORPUS_DIR: gone, CI: 'true' })).toThrow(
      `CI=true: ${path.join(gone, 'a/b.json')} is not present (the shared corpus; set CORPUS_DIR to its folder)`,
    );
  });

  it('finds the corpus beside the repository unless CORPUS_DIR says otherwise', () => {
    expect(corpusDir({})).toBe(path.resolve(here, '../../../shared/corpus'));
    expect(corpusDir({ CORPUS_DIR: '/somewhere/corpus' })).toBe('/somewhere/corpus');
  });
});

it('isCi reads CI=true and CI=1 only', () => {
  expect([isCi({ CI: 'true' }), isCi({ CI: 'TRUE' }), isCi({ CI: '1' })]).toEqual([true, true, true]);
  expect([isCi({}), isCi({ CI: 'false' }), isCi({ CI: '0' }), isCi({ CI: '' })]).toEqual([
    false,
    false,
    false,
    false,
  ]);
});
