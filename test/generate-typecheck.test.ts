/**
 * `tsc --strict` over generated modules: the Petstore contracts in both runtime modes and the golden
 * specs with every file checked (`checkAll`, which also proves each zod schema agrees with its
 * interface), and the generated fixtures validate against the generated zod schemas.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { generate } from '../generator/generate.js';
import { repoRoot, typecheck } from './types/typecheck.js';

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'typecheck-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SPECS = ['schemas/', 'test/golden/specs/'];

/** Diagnostics outside this repo's runtime/ (that is checked by `npm run typecheck`). */
function generatedErrors(files: string[]): string[] {
  return typecheck(files).filter((d) => !d.startsWith('runtime/'));
}

async function fixturesValidate(folder: string): Promise<string[]> {
  const schemas = (await import(pathToFileURL(path.join(folder, 'schemas.ts')).href)) as {
    eventSchemas: Record<string, z.ZodType>;
  };
  const { fixtures } = (await import(pathToFileURL(path.join(folder, 'fixtures.ts')).href)) as {
    fixtures: Record<string, unknown>;
  };
  const failures: string[] = [];
  for (const [event, schema] of Object.entries(schemas.eventSchemas)) {
    const result = schema.safeParse(fixtures[event]);
    if (!result.success) failures.push(`${event}: ${result.error.message}`);
  }
  return failures;
}

describe('generated code compiles under tsc --strict', () => {
  it('package runtime mode, every file checked', async () => {
    const out = path.join(dir, 'package');
    const result = await generate({ inputs: SPECS, out, cwd: repoRoot, checkAll: true });
    expect(result.contracts.length).toBe(8);
    const entries = result.contracts.map((c) => path.join(out, c.name, 'index.ts'));
    expect(generatedErrors(entries)).toEqual([]);
    for (const c of result.contracts)
      expect(await fixturesValidate(path.join(out, c.name)), c.name).toEqual([]);
  }, 300_000);

  it('inline runtime mode: the module imports only zod and its own runtime copy', async () => {
    const out = path.join(dir, 'inline');
    const result = await generate({
      inputs: ['schemas/petstore.openapi.yaml'],
      out,
      cwd: repoRoot,
      runtime: 'inline',
    });
    const files = result.contracts[0]?.files ?? [];
    expect(files).toContain('petstore-openapi/runtime/index.ts');
    expect(files.some((f) => f.endsWith('.test.ts'))).toBe(false);
    const diagnostics = typecheck([path.join(out, 'petstore-openapi/index.ts')], { mapRuntime: false });
    expect(diagnostics).toEqual([]);
    // Bare imports: zod and node built-ins (the stores' driver types are the runtime's own).
    const bare = new Set<string>();
    for (const file of files.filter((f) => /\.(ts|js)$/.test(f))) {
      const text = readFileSync(path.join(out, file), 'utf8');
      for (const m of text.matchAll(/^(import|export)(\s+type)?\b[^;]*?from '([^'.][^']*)'/gm)) {
        const spec = m[3] ?? '';
        if (spec.startsWith('node:')) continue;
        bare.add(m[2] ? `type ${spec}` : spec);
      }
    }
    // schemas.d.ts imports zod's types (`import type { z }`), schemas.js its values.
    expect([...bare].sort()).toEqual(['type zod', 'zod']);
  }, 300_000);
});
