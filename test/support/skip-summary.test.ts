/**
 * End to end, in a child vitest over a tiny fixture suite with the service variables unset: the
 * globalSetup's local defaults reach the workers, and the run ends with one skip line per group.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { LOCAL_SERVICES, PROBE_TIMEOUT_MS } from './local-services.js';
import { decide } from './requires.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const config = path.join(import.meta.dirname, 'fixtures/skip-summary/vitest.config.ts');

// The defaults must answer for the child to use them: locally that may not hold, under CI it must.
const postgres = LOCAL_SERVICES.find((s) => s.env === 'DATABASE_URL')!;
const noDefault = await postgres.probe(postgres.url, PROBE_TIMEOUT_MS).then(
  () => undefined,
  (error: Error) => `no PostgreSQL at ${postgres.url} (${error.message})`,
);

it.skipIf(decide(noDefault, 'the skip-summary run'))(
  'uses the local defaults and prints why each group skipped',
  async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' };
    for (const name of ['CI', 'DATABASE_URL', 'REDIS_URL', 'GW_SKIP_LOG']) delete env[name];
    const vitest = path.join(root, 'node_modules/vitest/vitest.mjs');
    const { stdout } = await run(process.execPath, [vitest, 'run', '--config', config], { cwd: root, env });

    expect(stdout).toContain(`test services: DATABASE_URL unset, using ${postgres.url} (it answered)`);
    // The worker saw it: globalSetup set it before the fork.
    expect(stdout).toContain(`worker sees DATABASE_URL=${postgres.url}`);
    const summary = stdout.slice(stdout.indexOf('Skipped 3 tests (under CI=true these fail instead):'));
    expect(summary.split('\n').slice(0, 3)).toEqual([
      'Skipped 3 tests (under CI=true these fail instead):',
      '  the fixture binary tests — the gw-no-such-binary-4711 CLI is not installed' +
        ' (`gw-no-such-binary-4711 version` failed) (binary.fixture.ts: 2 skipped)',
      '  1 test in bare.fixture.ts — no reason recorded (see its skipIf)',
    ]);
  },
);
