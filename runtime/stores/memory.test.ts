import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { memoryStore } from './memory.js';
import { runStoreSuite } from './store-suite.js';

runStoreSuite('memory', { queue: true, create: () => memoryStore() });

describe('memoryStore outside tests', () => {
  it('warns once that it is for tests only', () => {
    const script = [
      "import { memoryStore } from './runtime/stores/memory.ts';",
      'memoryStore(); memoryStore();',
    ].join('\n');
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
    delete env['VITEST'];
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'),
      env,
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stderr.match(/memoryStore\(\) keeps idempotency keys in this process only/g)).toHaveLength(
      1,
    );
  });
});
