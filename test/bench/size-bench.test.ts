/**
 * bench/size.bench.ts still runs against the code it measures (not a size assertion: the figures
 * belong to the bench): every case bundles, the generated receivers' imports included. A renamed
 * entry or part fails here at once instead of at the next measurement.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

it('bench:size bundles every case and prints its verdict', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/size.bench.ts'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, SIZE_TOP: '0' },
    timeout: 120_000,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout.match(/\d+ B minified, \d+ B gzip/g)).toHaveLength(11);
  expect(run.stdout).toMatch(
    /generated receivers' runtime code \(each factory as an app imports it\): at most \d+ B gzip/,
  );
}, 150_000);
