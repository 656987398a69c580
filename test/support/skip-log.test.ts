/** The skip log across processes and the summary's lines. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatSkipSummary, readSkips, recordSkip, SKIP_LOG_ENV } from './skip-log.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-skip-log-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('recordSkip / readSkips', () => {
  it('round-trips records through the folder the env names, and ignores a run without one', () => {
    const a = { file: '/r/a.test.ts', what: 'the pg tests', problem: 'DATABASE_URL is not set' };
    const b = { file: undefined, what: 'the tls tests', problem: 'no openssl' };
    recordSkip(a, { [SKIP_LOG_ENV]: dir });
    recordSkip(b, { [SKIP_LOG_ENV]: dir });
    recordSkip(a, {});
    expect(readSkips(dir)).toEqual([a, { what: 'the tls tests', problem: 'no openssl' }]);
    expect(readSkips(path.join(dir, 'absent'))).toEqual([]);
  });
});

describe('formatSkipSummary', () => {
  const pg = 'DATABASE_URL is not set (this needs PostgreSQL)';

  it('one line per group with its files and counts, then files no reason covers', () => {
    const lines = formatSkipSummary(
      [
        { file: '/r/test/b.test.ts', what: 'the pg tests', problem: pg },
        { file: '/r/test/a.test.ts', what: 'the pg tests', problem: pg },
        { file: '/r/test/a.test.ts', what: 'the pg tests', problem: pg },
        { file: '/r/test/tls.test.ts', what: 'the TLS tests', problem: 'the openssl CLI is not installed' },
      ],
      new Map([
        ['/r/test/a.test.ts', 4],
        ['/r/test/b.test.ts', 1],
        ['/r/test/tls.test.ts', 2],
        ['/r/test/bare.test.ts', 1],
      ]),
      '/r',
    );
    expect(lines).toEqual([
      'Skipped 8 tests (under CI=true these fail instead):',
      `  the pg tests — ${pg} (test/a.test.ts: 4 skipped, test/b.test.ts: 1 skipped)`,
      '  the TLS tests — the openssl CLI is not installed (test/tls.test.ts: 2 skipped)',
      '  1 test in test/bare.test.ts — no reason recorded (see its skipIf)',
    ]);
  });

  it('is empty when nothing skipped', () => {
    expect(formatSkipSummary([], new Map(), '/r')).toEqual([]);
  });
});
