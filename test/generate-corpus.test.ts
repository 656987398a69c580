/**
 * Every document of the shared third-party corpus (/work/shared/corpus) that loads is generated,
 * compiles under tsc --strict, and has fixtures that pass its zod schemas (or a diagnostic saying
 * no payload satisfies the schema). Documents that do not load are covered by corpus-load.test.ts.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { GeneratorError } from '../generator/errors.js';
import { emitAll } from '../generator/generate.js';
import type { ContractModel } from '../generator/model.js';
import { loadContract } from '../generator/parse/index.js';
import { writeOutput } from '../generator/write.js';
import { corpusDir, missingCorpus } from './support/requires.js';
import { checkContractLiteral, repoRoot, typecheck } from './types/typecheck.js';

const corpus = corpusDir();
const noCorpus = missingCorpus('generate-corpus');

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'corpus-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function documents(root: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const file = path.join(root, entry.name);
    if (entry.isDirectory()) out.push(...documents(file));
    else if (/\.(ya?ml|json)$/i.test(entry.name)) out.push(file);
  }
  return out.sort();
}

interface Generated {
  readonly file: string;
  readonly folder: string;
  readonly model: ContractModel;
  readonly unsatisfiable: ReadonlySet<string>;
}

describe.skipIf(noCorpus)('generating the corpus', async () => {
  const generated: Generated[] = [];
  if (!noCorpus) {
    for (const [i, file] of documents(corpus).entries()) {
      let model: ContractModel;
      try {
        // Corpus contracts $ref shared files beside their folders (`../common/…`).
        model = await loadContract(file, { refRoot: corpus });
      } catch (error) {
        if (error instanceof GeneratorError) continue;
        throw error;
      }
      const out = path.join(dir, String(i));
      // The TypeScript form, which this file compiles and imports (js-form.test.ts: the JavaScript form is the same code).
      const { folders, diagnostics } = emitAll([model], {
        runtime: 'package',
        cwd: repoRoot,
        dataModules: 'ts',
      });
      writeOutput(out, folders);
      const unsatisfiable = new Set(
        diagnostics
          .filter((d) => d.code === 'fixture_not_valid')
          .map((d) => /event '([^']+)'/.exec(d.message)?.[1] ?? ''),
      );
      generated.push({
        file: path.relative(corpus, file),
        folder: path.join(out, model.name),
        model,
        unsatisfiable,
      });
    }
  }

  it('generates a module for every document that loads', () => {
    expect(generated.length).toBeGreaterThan(20);
  });

  it('compiles every generated module under tsc --strict', () => {
    for (const g of generated) checkContractLiteral(g.folder);
    const diagnostics = typecheck(generated.map((g) => path.join(g.folder, 'index.ts'))).filter(
      (d) => !d.startsWith('runtime/'),
    );
    expect(diagnostics).toEqual([]);
  }, 600_000);

  it('has fixtures that pass the generated zod schemas', async () => {
    const failures: string[] = [];
    for (const g of generated) {
      const { eventSchemas } = (await import(pathToFileURL(path.join(g.folder, 'schemas.ts')).href)) as {
        eventSchemas: Record<string, z.ZodType>;
      };
      const { fixtures } = (await import(pathToFileURL(path.join(g.folder, 'fixtures.ts')).href)) as {
        fixtures: Record<string, unknown>;
      };
      for (const event of g.model.events) {
        const ok = eventSchemas[event.name]?.safeParse(fixtures[event.name]).success === true;
        if (ok === g.unsatisfiable.has(event.name)) {
          failures.push(`${g.file} ${event.name}: ${ok ? 'valid but reported unsatisfiable' : 'invalid'}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
