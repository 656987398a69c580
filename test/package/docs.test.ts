/**
 * docs/sdk.md's ```ts blocks: each type-checks against the generator API, the runtime and a freshly
 * generated Petstore module, and each runs (under test/.tmp/, so zod resolves; the runtime through
 * the vitest alias). The config block runs as a module whose default export must be a valid config.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../generator/generate.js';
import { repoRoot, typecheck } from '../types/typecheck.js';

const blocks = [
  ...readFileSync(path.join(repoRoot, 'docs/sdk.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g),
].map((match) => match[1] ?? '');
mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
const dir = mkdtempSync(path.join(repoRoot, 'test/.tmp/sdk-docs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(async () => {
  await generate({
    inputs: [path.join(repoRoot, 'schemas/petstore.openapi.yaml')],
    out: path.join(dir, 'generated'),
  });
}, 120_000);

describe('docs/sdk.md examples', () => {
  it('has the config and the verifyAndParse examples', () => {
    expect(blocks).toHaveLength(2);
  });

  it('type-check', () => {
    const files = blocks.map((code, i) => {
      const file = path.join(dir, `typed-${i + 1}.ts`);
      writeFileSync(file, `${code}\nexport {};\n`);
      return file;
    });
    expect(typecheck(files).filter((d) => !d.startsWith('runtime/'))).toEqual([]);
  }, 180_000);

  it.each(blocks.map((code, i) => [i + 1, code] as const))('example %i runs', async (i, code) => {
    const file = path.join(dir, `example-${i}.ts`);
    writeFileSync(file, code);
    const mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
    if (mod.default !== undefined)
      expect(mod.default).toMatchObject({ package: { name: '@petstore/webhooks' } });
  });
});
