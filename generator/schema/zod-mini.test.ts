/**
 * `--zod mini`: every case of `__fixtures__/cases.ts` runs against the zod/mini output too, which must
 * accept and reject exactly what the classic output does (and what ajv does), give back the same
 * data and point its issues at the same paths; the whole case set type-checks under `strict`.
 */

import { describe, expect, it } from 'vitest';
import * as zodMini from 'zod/mini';
import type { Diagnostic } from '../errors.js';
import type { JsonSchema } from '../model.js';
import { cases } from './__fixtures__/cases.js';
import { ajvFor, renderModule, typeCheck, zodFor } from './__fixtures__/harness.js';
import { createIdentifierAllocator } from './index.js';
import { renderZodMiniDeclaration } from './zod-mini.js';

interface MiniSchema {
  safeParse(value: unknown): {
    success: boolean;
    data?: unknown;
    error?: { issues: { path: PropertyKey[] }[] };
  };
}

/** The harness's module, with a zod/mini schemas.ts beside its (shared) types.ts. */
function renderMini(schemas: Readonly<Record<string, JsonSchema>>) {
  const classic = renderModule(schemas);
  const allocator = createIdentifierAllocator();
  const schemaNames = new Map<string, string>();
  for (const key of Object.keys(schemas)) {
    allocator.allocate(key, 'pascal');
    schemaNames.set(key, allocator.allocate(key, 'pascal', 'Schema'));
  }
  expect([...schemaNames]).toEqual([...classic.schemaNames]);
  const diagnostics: Diagnostic[] = [];
  const sourced = (key: string) => {
    const schema = schemas[key];
    return schema === undefined ? undefined : { schema, source: `fixture.yaml#/components/schemas/${key}` };
  };
  const ctx = {
    schemaName: (key: string) => schemaNames.get(key) ?? `Missing_${key}Schema`,
    warn: (d: Diagnostic) => diagnostics.push(d),
    resolve: sourced,
  };
  const decls = Object.keys(schemas).map((key) =>
    renderZodMiniDeclaration(
      schemaNames.get(key) ?? '',
      classic.typeNames.get(key) ?? '',
      sourced(key) as NonNullable<ReturnType<typeof sourced>>,
      ctx,
    ),
  );
  const imports = [...classic.typeNames.values()].map((name) => `  ${name},`).join('\n');
  return {
    types: classic.types,
    schemas: `import * as z from 'zod/mini';\nimport type {\n${imports}\n} from './types.js';\n\n${decls.join('\n\n')}\n`,
    schemaNames,
    diagnostics,
    classicDiagnostics: classic.diagnostics,
  };
}

/** Evaluates a mini schemas.ts text (its imports and annotations stripped); returns its exports. */
function loadMini(text: string): Record<string, MiniSchema> {
  const js = text
    .replace(/^import [^;]*;$/gm, '')
    .replace(/^export const (\w+): z\.ZodMiniType<\w+> = /gm, 'const $1 = exports.$1 = ');
  const exports: Record<string, MiniSchema> = {};
  new Function('exports', 'z', js)(exports, zodMini.z);
  return exports;
}

const paths = (result: ReturnType<MiniSchema['safeParse']>) =>
  (result.error?.issues ?? []).map((issue) => issue.path.map(String).join('/')).sort();

describe('zod/mini output agrees with the classic output and with ajv', () => {
  for (const [name, testCase] of Object.entries(cases)) {
    it(name, () => {
      const named: Record<string, JsonSchema> = { [name]: testCase.schema, ...testCase.named };
      const mini = renderMini(named);
      // The same findings (unsupported keywords etc.) as the classic renderer.
      expect(mini.diagnostics).toEqual(mini.classicDiagnostics);
      const schema = loadMini(mini.schemas)[mini.schemaNames.get(name) ?? ''];
      if (!schema) throw new Error(`no mini schema for ${name}`);
      const classic = zodFor(name, testCase.schema, testCase.named).schema;
      const ajv = ajvFor(name, named);
      for (const value of testCase.valid) {
        expect(ajv(value)).toBe(true);
        const result = schema.safeParse(value);
        expect(result.success, `mini accepts ${JSON.stringify(value)}`).toBe(true);
        expect(result.data).toEqual(value);
      }
      for (const value of testCase.invalid) {
        const result = schema.safeParse(value);
        expect(result.success, `mini rejects ${JSON.stringify(value)}`).toBe(false);
        expect(paths(result), `issue paths for ${JSON.stringify(value)}`).toEqual(
          paths(classic.safeParse(value) as ReturnType<MiniSchema['safeParse']>),
        );
      }
    });
  }
});

describe('tsc --strict over the mini module', () => {
  const all: Record<string, JsonSchema> = {};
  for (const [name, testCase] of Object.entries(cases))
    Object.assign(all, { [name]: testCase.schema }, testCase.named);

  it('every construct: types + z.ZodMiniType<X>-annotated schemas compile with zero diagnostics', () => {
    const mini = renderMini(all);
    const names = [...mini.schemaNames.values()].join(', ');
    const consumer = [
      "import type { ObjectRequiredOptional } from './types.js';",
      `import { ${names} } from './schemas.js';`,
      "import { z } from 'zod/mini';",
      'export function id(input: unknown): number {',
      '  const pet: ObjectRequiredOptional = z.parse(ObjectRequiredOptionalSchema, input);',
      '  return pet.id;',
      '}',
      `export const all = [${names}];`,
    ].join('\n');
    expect(
      typeCheck({ 'types.ts': mini.types, 'schemas.ts': mini.schemas, 'consumer.ts': consumer }),
    ).toEqual([]);
  }, 180_000);

  it('the check is real: a schema annotated with the wrong interface is a type error', () => {
    const mini = renderMini({
      A: { type: 'object', required: ['a'], properties: { a: { type: 'string' } } },
      B: { type: 'object', required: ['a'], properties: { a: { type: 'integer' } } },
    });
    const wrong = mini.schemas.replace('ASchema: z.ZodMiniType<A>', 'ASchema: z.ZodMiniType<B>');
    expect(wrong).not.toBe(mini.schemas);
    expect(typeCheck({ 'types.ts': mini.types, 'schemas.ts': wrong }).join('\n')).toMatch(
      /schemas\.ts:\d+ .*is not assignable to type 'ZodMiniType<B/s,
    );
  }, 180_000);
});
