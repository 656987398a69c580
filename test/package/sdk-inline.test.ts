/**
 * `--package --runtime inline`: the SDK carries its runtime in dist/runtime/, depends on nothing but
 * its zod peer, passes publint --strict, and its smoke test runs with only zod installed.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../generator/generate.js';
import { repoRoot } from '../types/typecheck.js';
import { cli, nodeTest, npmPack } from './helpers.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gw-sdk-inline-'));
const pkgDir = path.join(tmp, 'packages/petstore-openapi');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

beforeAll(async () => {
  // zod only: nothing else resolvable from the package folder.
  mkdirSync(path.join(tmp, 'node_modules'), { recursive: true });
  symlinkSync(path.join(repoRoot, 'node_modules/zod'), path.join(tmp, 'node_modules/zod'), 'dir');
  await generate({
    inputs: ['schemas/petstore.openapi.yaml', 'test/golden/specs/keys.openapi31.yaml'],
    cwd: repoRoot,
    package: path.join(tmp, 'packages'),
    runtime: 'inline',
  });
}, 300_000);

describe('an SDK package with the runtime inlined', () => {
  it('has no dependencies, only the zod peer, and the runtime in dist/runtime/', () => {
    const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.peerDependencies).toEqual({ zod: '^4' });
    expect(existsSync(path.join(pkgDir, 'dist/runtime/index.js'))).toBe(true);
    expect(existsSync(path.join(pkgDir, 'dist/runtime/index.d.ts'))).toBe(true);
    expect(readFileSync(path.join(pkgDir, 'dist/runtime.js'), 'utf8')).toContain("from './runtime/index.js'");
    expect(readFileSync(path.join(pkgDir, 'dist/receiver.js'), 'utf8')).not.toContain(
      '@gen-webhooks/runtime',
    );
  });

  it('passes publint --strict', () => {
    const tarball = npmPack(pkgDir, path.join(tmp, 'tarballs'));
    const result = cli('publint', ['run', '--strict', tarball], tmp);
    expect(result.output).toContain('All good!');
    expect(result.code).toBe(0);
  });

  it('passes its smoke test with only zod installed', () => {
    const result = nodeTest('test/smoke.test.mjs', pkgDir);
    expect(result.output).toMatch(/# pass 2\n# fail 0/);
    expect(result.code).toBe(0);
  }, 120_000);

  it('a key-pair (asymmetric) contract: its smoke test verifies with the public key, signs with the private one', () => {
    const keys = path.join(tmp, 'packages/keys-openapi31');
    expect(readFileSync(path.join(keys, 'README.md'), 'utf8')).toContain(
      "createParser({ publicKey: process.env['WEBHOOK_PUBLIC_KEY'] ?? '' })",
    );
    const result = nodeTest('test/smoke.test.mjs', keys);
    expect(result.output).toMatch(/# pass 2\n# fail 0/);
    expect(result.code).toBe(0);
  }, 120_000);
});
