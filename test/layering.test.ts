/**
 * The layering is enforced: the rules of test/layering/graph.ts hold for this repository, and each
 * rule fires on a small project that breaks it (so a rule cannot silently stop checking).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLayering, readGraph } from './layering/graph.js';
import { repoRoot } from './types/typecheck.js';

/** The tsconfig `paths`, as the graph's aliases (`@gen-webhooks/runtime` → runtime/index.ts, …). */
function aliases(): Record<string, string> {
  const config = ts.readConfigFile(path.join(repoRoot, 'tsconfig.json'), ts.sys.readFile).config as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  return Object.fromEntries(
    Object.entries(config.compilerOptions.paths).map(([name, [target]]) => [
      name,
      path.posix.normalize(target ?? ''),
    ]),
  );
}

describe('layering of this repository', () => {
  const graph = readGraph(repoRoot, { aliases: aliases() });

  it('reads both layers', () => {
    expect(graph.files).toContain('runtime/web.ts');
    expect(graph.files).toContain('runtime/generated-web.ts');
    expect(graph.files).toContain('generator/cli.ts');
    expect(graph.edges.length).toBeGreaterThan(300);
  });

  it('has no violation', () => {
    expect(checkLayering(graph)).toEqual([]);
  });
});

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gw-layering-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function project(files: Record<string, string>): string[] {
  const root = mkdtempSync(path.join(tmp, 'p-'));
  const base = {
    'runtime/web.ts': "export { a } from './a.js';\n",
    'runtime/a.ts': 'export const a = 1;\n',
    'generator/index.ts': "import type { a } from '../runtime/a.js';\nexport type A = typeof a;\n",
    'generator/tools/send.ts': "import { a } from '../../runtime/a.js';\nexport const b = a;\n",
  };
  for (const [file, text] of Object.entries({ ...base, ...files })) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return checkLayering(readGraph(root, { aliases: { '@gen-webhooks/runtime': 'runtime/web.ts' } }));
}

describe('each rule fires', () => {
  it('a clean project passes', () => {
    expect(project({})).toEqual([]);
  });

  it('the runtime importing the generator', () => {
    expect(
      project({ 'runtime/a.ts': "import type { A } from '../generator/index.js';\nexport const a = 1;\n" }),
    ).toEqual([
      expect.stringContaining('runtime/a.ts imports generator/index.ts'),
      expect.stringContaining('import cycle'),
    ]);
  });

  it('the generator importing runtime values outside its tools (a type import is fine)', () => {
    expect(
      project({ 'generator/emit.ts': "import { a } from '@gen-webhooks/runtime';\nexport const c = a;\n" }),
    ).toEqual([expect.stringContaining('generator/emit.ts imports runtime values from runtime/web.ts')]);
    expect(
      project({
        'generator/emit.ts': "import type { a } from '@gen-webhooks/runtime';\nexport type C = typeof a;\n",
      }),
    ).toEqual([]);
    // `import { type a }` still loads the module under verbatimModuleSyntax.
    expect(
      project({
        'generator/emit.ts': "import { type a } from '@gen-webhooks/runtime';\nexport type C = typeof a;\n",
      }),
    ).toEqual([expect.stringContaining('generator/emit.ts imports runtime values')]);
  });

  it('an import cycle, even through type-only imports', () => {
    expect(
      project({
        'generator/cli.ts':
          "export interface Command { run(): void }\nexport const load = () => import('./commands/x.js');\n",
        'generator/commands/x.ts':
          "import type { Command } from '../cli.js';\nexport const command: Command = { run() {} };\n",
      }),
    ).toEqual(['import cycle (type-only imports count): generator/cli.ts ↔ generator/commands/x.ts']);
  });

  it('a node:* module reachable from the Web entry, even as a type import', () => {
    expect(
      project({
        'runtime/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
        'runtime/b.ts':
          "import type { KeyObject } from 'node:crypto';\nexport const b = 1 as unknown as KeyObject;\n",
      }),
    ).toEqual([
      'runtime/web.ts reaches node:crypto: runtime/web.ts → runtime/a.ts → runtime/b.ts imports it',
    ]);
    // The Web entry for generated code is held to the same rule.
    expect(
      project({
        'runtime/generated-web.ts': "export { b } from './b.js';\n",
        'runtime/b.ts': "import { createHash } from 'node:crypto';\nexport const b = createHash;\n",
      }),
    ).toEqual([
      'runtime/generated-web.ts reaches node:crypto: runtime/generated-web.ts → runtime/b.ts imports it',
    ]);
    // Reached only through a type import: not loaded, so not a violation here (the strict-consumer
    // test checks the declarations need no Node types).
    expect(
      project({
        'runtime/web.ts': "export { a } from './a.js';\nexport type { B } from './b.js';\n",
        'runtime/b.ts': "import { createHash } from 'node:crypto';\nexport type B = typeof createHash;\n",
      }),
    ).toEqual([]);
  });

  it('a package import in the runtime (zod only in runtime/manage/)', () => {
    expect(project({ 'runtime/c.ts': "import { z } from 'zod';\nexport const c = z;\n" })).toEqual([
      expect.stringContaining('runtime/c.ts imports the package zod'),
    ]);
    expect(project({ 'runtime/manage/h.ts': "import { z } from 'zod';\nexport const c = z;\n" })).toEqual([]);
  });

  it('the generator API loading the developer tools', () => {
    expect(project({ 'generator/index.ts': "export { b } from './tools/send.js';\n" })).toEqual([
      'generator/index.ts loads the developer tools: generator/index.ts → generator/tools/send.ts',
    ]);
  });
});
