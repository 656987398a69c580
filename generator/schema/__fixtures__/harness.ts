/**
 * Test harness for the schema renderers: renders a set of named schemas into a `types.ts` +
 * `schemas.ts` pair (the way the emitters do), type-checks them with the TypeScript compiler API under
 * `strict`, and evaluates the zod module at runtime. Test-only (excluded from the build).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import ts from 'typescript';
import * as zod from 'zod';
import type { Diagnostic } from '../../errors.js';
import type { JsonSchema } from '../../model.js';
import { CheckModule, checkName } from '../check.js';
import {
  createIdentifierAllocator,
  renderTypeDeclaration,
  renderZodDeclaration,
  type SchemaContext,
  validatedNode,
} from '../index.js';

// CJS interop: the default export is the class/function itself under NodeNext.
const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const addFormats = addFormatsModule.default ?? addFormatsModule;

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface RenderedModule {
  readonly types: string;
  readonly schemas: string;
  readonly typeNames: ReadonlyMap<string, string>;
  readonly schemaNames: ReadonlyMap<string, string>;
  readonly diagnostics: readonly Diagnostic[];
  /** The fast-path predicates (check.ts) of every schema, `is_<SchemaName>`, to append to `schemas`. */
  readonly checks: string;
}

/** Renders named schemas (`key → schema`) into `types.ts` and `schemas.ts` texts. */
export function renderModule(
  schemas: Readonly<Record<string, JsonSchema>>,
  options: { file?: string; resolve?: boolean } = {},
): RenderedModule {
  const file = options.file ?? 'fixture.yaml';
  const allocator = createIdentifierAllocator();
  const typeNames = new Map<string, string>();
  const schemaNames = new Map<string, string>();
  for (const key of Object.keys(schemas)) {
    typeNames.set(key, allocator.allocate(key, 'pascal'));
    schemaNames.set(key, allocator.allocate(key, 'pascal', 'Schema'));
  }
  const diagnostics: Diagnostic[] = [];
  const sourced = (key: string) => {
    const schema = schemas[key];
    return schema === undefined ? undefined : { schema, source: `${file}#/components/schemas/${key}` };
  };
  const ctx: SchemaContext = {
    typeName: (key) => typeNames.get(key) ?? `Missing_${key}`,
    schemaName: (key) => schemaNames.get(key) ?? `Missing_${key}Schema`,
    warn: (d) => diagnostics.push(d),
    ...(options.resolve === false ? {} : { resolve: sourced }),
  };
  const typeDecls: string[] = [];
  const zodDecls: string[] = [];
  const checks = new CheckModule({ schemaName: (key) => ctx.schemaName(key) });
  for (const key of Object.keys(schemas)) {
    const source = sourced(key);
    const typeName = typeNames.get(key);
    const schemaName = schemaNames.get(key);
    if (!source || !typeName || !schemaName) continue;
    typeDecls.push(renderTypeDeclaration(typeName, source, ctx));
    zodDecls.push(renderZodDeclaration(schemaName, typeName, source, ctx));
    checks.declare(schemaName, validatedNode(source, ctx));
  }
  const imports = [...typeNames.values()].map((name) => `  ${name},`).join('\n');
  return {
    types: `${typeDecls.join('\n\n')}\n`,
    schemas: `import { z } from 'zod';\nimport type {\n${imports}\n} from './types.js';\n\n${zodDecls.join('\n\n')}\n`,
    typeNames,
    schemaNames,
    diagnostics,
    checks: checks.source(),
  };
}

/** Type-checks files (name → text) under `strict` with the project's options; returns messages. */
export function typeCheck(files: Readonly<Record<string, string>>): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-schema-'));
  try {
    fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
    const names = Object.keys(files).map((name) => {
      const full = path.join(dir, name);
      fs.writeFileSync(full, files[name] ?? '');
      return full;
    });
    const program = ts.createProgram(names, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: false,
      skipLibCheck: true,
      noEmit: true,
      types: [],
    });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const where = d.file
        ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
        : '';
      return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const require = createRequire(import.meta.url);

/**
 * Evaluates an emitted `schemas.ts` text (zod injected); returns its exports. The emitted text is TS
 * only in its `import`s and `: z.ZodType<X>` annotations, which are stripped directly (transpiling
 * GitHub-sized modules costs seconds); anything else goes through `ts.transpileModule`.
 */
export function loadSchemas(schemasText: string): Record<string, zod.ZodType> {
  const stripped = schemasText
    .replace(/^import [^;]*;$/gm, '')
    .replace(/^export const (\w+): z\.ZodType<\w+> = /gm, 'const $1 = exports.$1 = ');
  const js = /^(import|export) /m.test(stripped)
    ? ts.transpileModule(schemasText, {
        compilerOptions: {
          module: ts.ModuleKind.CommonJS,
          target: ts.ScriptTarget.ES2022,
          verbatimModuleSyntax: false,
        },
      }).outputText
    : stripped;
  const exports: Record<string, zod.ZodType> = {};
  const fakeRequire = (id: string): unknown => (id === 'zod' ? zod : require(id));
  new Function('exports', 'require', 'z', js)(exports, fakeRequire, zod.z);
  return exports;
}

/** Renders `key` (plus the schemas it refers to) and loads it; returns its zod schema. */
export function zodFor(
  key: string,
  schema: JsonSchema,
  others: Readonly<Record<string, JsonSchema>> = {},
): { schema: zod.ZodType; module: RenderedModule } {
  const module = renderModule({ [key]: schema, ...others });
  const loaded = loadSchemas(module.schemas);
  const subject = loaded[module.schemaNames.get(key) ?? ''];
  if (!subject) throw new Error(`the zod schema of ${key} was not emitted`);
  return { schema: subject, module };
}

/** ajv (draft 2020-12 + formats) over named schemas; `#/schemas/<k>` refs resolve. */
export function createAjv(
  schemas: Readonly<Record<string, JsonSchema>>,
): (key: string) => (value: unknown) => boolean {
  // inlineRefs: false compiles each named schema once instead of once per referrer (GitHub: 10× faster).
  const ajv = new Ajv2020({ strict: false, allErrors: false, inlineRefs: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'https://gen-webhooks.test/model', schemas });
  return (key) => {
    const validate = ajv.getSchema(
      `https://gen-webhooks.test/model#/schemas/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`,
    );
    if (!validate) throw new Error(`ajv could not compile ${key}`);
    return (value) => validate(value) === true;
  };
}

/** ajv validator for one named schema. */
export function ajvFor(
  key: string,
  schemas: Readonly<Record<string, JsonSchema>>,
): (value: unknown) => boolean {
  return createAjv(schemas)(key);
}

/** The module's zod schemas and, by schema name, its fast-path predicates (transpiled, then run). */
export function loadWithChecks(module: RenderedModule): {
  schemas: Record<string, zod.ZodType>;
  checks: Record<string, (value: unknown) => boolean>;
} {
  const names = [...module.schemaNames.values()];
  const text = `${module.schemas}\n${module.checks}\nexport const checks = { ${names.map((n) => `${n}: ${checkName(n)}`).join(', ')} };\n`;
  const js = ts.transpileModule(text, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const exports: Record<string, unknown> = {};
  const fakeRequire = (id: string): unknown => (id === 'zod' ? zod : require(id));
  new Function('exports', 'require', js)(exports, fakeRequire);
  const { checks, ...schemas } = exports;
  return {
    schemas: schemas as Record<string, zod.ZodType>,
    checks: checks as Record<string, (value: unknown) => boolean>,
  };
}

/**
 * The values ajv misjudges under `schemas`: where they have a multipleOf, those holding, at any
 * depth, a number beyond 2^53 in magnitude. ajv checks multipleOf as `x / m === parseInt(x / m)`:
 * beyond 2^53 the division rounds (it calls 2^60 a multiple of 3) and from 1e21 parseInt misreads the
 * exponent form (it rejects 1e21 as a multiple of 1). The emitted `x % m === 0` is exact, so parity
 * tests do not ask ajv about such values.
 */
export function ajvMisjudges(schemas: unknown): (value: unknown) => boolean {
  return JSON.stringify(schemas).includes('"multipleOf"') ? holdsUnsafeNumber : () => false;
}

function holdsUnsafeNumber(value: unknown): boolean {
  if (typeof value === 'number') return Math.abs(value) >= 2 ** 53;
  if (Array.isArray(value)) return value.some(holdsUnsafeNumber);
  if (value !== null && typeof value === 'object') return Object.values(value).some(holdsUnsafeNumber);
  return false;
}
