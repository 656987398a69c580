/**
 * The two forms of the data modules (see module-form.ts) hold the same code: each `.js` compiles to
 * exactly what its `.ts` compiles to, and its `.d.ts` declares every export the `.ts` has, with the
 * type the `.ts` annotated it with. Over the golden specs (both zod flavours) and GitHub's.
 */
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { transformSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../test/types/typecheck.js';
import type { ContractModel } from '../model.js';
import { loadContract } from '../parse/index.js';
import { ZOD_HELPERS, zodHelperJs, zodHelperSource } from '../schema/own-keys.js';
import { type EmitOptions, emitContract } from './index.js';

const specs = [
  path.join(repoRoot, 'schemas/petstore.openapi.yaml'),
  ...readdirSync(path.join(repoRoot, 'test/golden/specs')).map((f) =>
    path.join(repoRoot, 'test/golden/specs', f),
  ),
  createRequire(import.meta.url).resolve('@octokit/openapi-webhooks/generated/api.github.com.json'),
];

const compiled = (text: string, loader: 'ts' | 'js') => transformSync(text, { loader, format: 'esm' }).code;

/** `export const NAME: TYPE = ` of a .ts, and `export declare const NAME: TYPE;` of a .d.ts. */
const exportsOf = (text: string, re: RegExp) =>
  [...text.matchAll(re)].map(([, name, type]) => `${name}: ${type}`);

function emit(model: ContractModel, options: Partial<EmitOptions>) {
  return emitContract(model, {
    version: '0.0.0',
    source: 'x',
    runtimeImport: '@gen-webhooks/runtime',
    ...options,
  }).files;
}

describe('the JavaScript form of the data modules', () => {
  for (const spec of specs) {
    for (const zod of ['classic', 'mini'] as const) {
      it(`${path.basename(spec)} (${zod}): same code, same declared types`, async () => {
        const model = await loadContract(spec);
        const ts = emit(model, { zod, dataModules: 'ts' });
        const js = emit(model, { zod, dataModules: 'js' });
        for (const name of ['schemas', 'contract', 'validators']) {
          const source = ts.get(`${name}.ts`) ?? '';
          expect(compiled(js.get(`${name}.js`) ?? '', 'js'), name).toBe(compiled(source, 'ts'));
          const dts = js.get(`${name}.d.ts`) ?? '';
          expect(
            exportsOf(dts, /^export declare const (\w+): ([\s\S]*?);\n(?=export |\/\*\*|$)/gm),
            name,
          ).toEqual(exportsOf(source, /^export const (\w+): ([^=]*?) = /gm));
        }
        // Everything else is the same in both forms.
        for (const [file, text] of ts) {
          if (!/^(schemas|contract|validators)\./.test(file)) expect(js.get(file), file).toBe(text);
        }
      }, 60_000);
    }
  }

  it('turns the zod helpers into JavaScript that compiles as their TypeScript does', () => {
    for (const helper of ZOD_HELPERS) {
      expect(compiled(zodHelperJs(helper), 'js')).toBe(compiled(zodHelperSource(helper), 'ts'));
    }
  });
});
