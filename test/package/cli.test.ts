/** The SDK options on the command line and in config files: --zod, --package, --previous, `package: {…}`. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGenerate } from '../../generator/commands/generate.js';
import { loadConfig } from '../../generator/config.js';
import { GeneratorError } from '../../generator/errors.js';
import type { ToolIo } from '../../generator/tools/output.js';
import { repoRoot } from '../types/typecheck.js';
import { linkDependencies, runtimePackage } from './helpers.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-sdk-cli-'));
const petstore = path.join(repoRoot, 'schemas/petstore.openapi.yaml');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io(): ToolIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (chunk: string) => (out += chunk) },
    stderr: { write: (chunk: string) => (err += chunk) },
    env: {},
    out: () => out,
    err: () => err,
  };
}

async function configError(config: unknown): Promise<GeneratorError> {
  const file = path.join(dir, `bad-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(config));
  try {
    await loadConfig(file);
  } catch (error) {
    if (error instanceof GeneratorError) return error;
    throw error;
  }
  throw new Error('expected a config error');
}

describe('config: package, zod, previous', () => {
  it('reads them, paths relative to the config file', async () => {
    const file = path.join(dir, 'gen-webhooks.config.json');
    writeFileSync(
      file,
      JSON.stringify({
        inputs: [petstore],
        zod: 'mini',
        previous: 'old/petstore.yaml',
        package: { dir: 'packages', name: '@acme/petstore-webhooks', version: '2.0.0', license: 'ISC' },
      }),
    );
    expect(await loadConfig(file)).toMatchObject({
      zod: 'mini',
      previous: path.join(dir, 'old/petstore.yaml'),
      package: {
        dir: path.join(dir, 'packages'),
        name: '@acme/petstore-webhooks',
        version: '2.0.0',
        license: 'ISC',
      },
    });
  });

  it('names the field at fault', async () => {
    const cases: [unknown, RegExp, string][] = [
      [
        { package: { name: 'Not Valid' } },
        /package\.name "Not Valid" is not a valid npm package name/,
        '/package/name',
      ],
      [
        { package: { version: '1.0' } },
        /package\.version "1\.0" is not a semver version/,
        '/package/version',
      ],
      [{ package: { license: 'MIT; rm -rf' } }, /not an SPDX license expression/, '/package/license'],
      // npm's and SPDX's own rules, as their libraries read them: core module names, reserved names,
      // `~`, ids outside the SPDX list or in another letter case, non-canonical versions.
      ...['node_modules', 'http', 'a~b', 'favicon.ico'].map((name): [unknown, RegExp, string] => [
        { package: { name } },
        /is not a valid npm package name/,
        '/package/name',
      ]),
      ...['NotALicense', 'mit', 'MIT OR'].map((license): [unknown, RegExp, string] => [
        { package: { license } },
        /is not an SPDX license expression/,
        '/package/license',
      ]),
      ...['v1.2.3', '1.2.3 ', '01.2.3'].map((version): [unknown, RegExp, string] => [
        { package: { version } },
        /is not a semver version/,
        '/package/version',
      ]),
      [{ package: { homepage: 'x' } }, /package\.homepage is not a package option/, '/package/homepage'],
      [{ package: { repository: { url: 1 } } }, /package\.repository must be a URL/, '/package/repository'],
      [{ package: 'x' }, /`package` must be an object/, '/package'],
    ];
    for (const [config, message, pointer] of cases) {
      const error = await configError(config);
      expect(error.code).toBe('invalid_config');
      expect(error.message).toMatch(message);
      expect(error.pointer).toBe(pointer);
    }
    expect((await configError({ zod: 'tiny' })).message).toMatch(/invalid zod flavour 'tiny'/);
  });
});

describe('gen-webhooks flags', () => {
  it('--zod mini writes schemas importing zod/mini; a bad flavour is a usage error', async () => {
    const out = path.join(dir, 'mini');
    expect(await runGenerate([petstore, '--out', out, '--zod', 'mini', '--quiet'], io())).toBe(0);
    const schemas = readFileSync(path.join(out, 'petstore-openapi/schemas.js'), 'utf8');
    expect(schemas).toContain("import * as z from 'zod/mini';");
    const declared = readFileSync(path.join(out, 'petstore-openapi/schemas.d.ts'), 'utf8');
    expect(declared).toContain("import type * as z from 'zod/mini';");
    expect(declared).toContain('export declare const PetSchema: z.ZodMiniType<Pet>;');
    const bad = io();
    expect(await runGenerate([petstore, '--out', out, '--zod', 'tiny'], bad)).toBe(2);
    expect(bad.err()).toMatch(/--zod "tiny" is not a flavour \(expected classic or mini\)/);
  });

  it('--previous needs --package', async () => {
    const bad = io();
    expect(await runGenerate([petstore, '--previous', petstore], bad)).toBe(2);
    expect(bad.err()).toMatch(/--previous needs --package/);
  });

  describe('--package', () => {
    beforeAll(() => linkDependencies(dir, runtimePackage()), 300_000);

    it('prints the package and version; --check then reports it up to date', async () => {
      const packages = path.join(dir, 'packages');
      const first = io();
      expect(await runGenerate([petstore, '--package', packages], first)).toBe(0);
      expect(first.out()).toMatch(
        /✓ petstore-openapi {2}6 events {2}\d+ files {2}written {2}petstore-openapi-webhooks@0\.1\.0\n/,
      );
      const check = io();
      expect(await runGenerate([petstore, '--package', packages, '--check'], check)).toBe(0);
      expect(check.out()).toMatch(/Up to date/);
      const json = io();
      expect(await runGenerate([petstore, '--package', packages, '--check', '--json'], json)).toBe(0);
      expect(JSON.parse(json.out()).contracts[0].package).toEqual({
        name: 'petstore-openapi-webhooks',
        version: '0.1.0',
      });
    }, 120_000);
  });
});
