/**
 * Type-checks files with the TypeScript compiler API the way a user's project would: strict,
 * NodeNext, `@gen-webhooks/runtime` mapped to this repo's runtime sources. Returns formatted
 * diagnostics (empty when the files compile).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { NOCHECK_LINE } from '../../generator/emit/index.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface TypecheckOptions {
  /** Extra compiler options (e.g. `skipLibCheck`). */
  readonly compilerOptions?: ts.CompilerOptions;
  /** Map `@gen-webhooks/runtime` to the runtime sources (default true). */
  readonly mapRuntime?: boolean;
}

export function typecheck(files: readonly string[], options: TypecheckOptions = {}): string[] {
  const compilerOptions: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
    typeRoots: [path.join(repoRoot, 'node_modules/@types')],
    ...(options.mapRuntime === false
      ? {}
      : {
          baseUrl: repoRoot,
          paths: {
            '@gen-webhooks/runtime': ['./runtime/index.ts'],
            '@gen-webhooks/runtime/generated': ['./runtime/generated.ts'],
            'gen-webhooks': ['./generator/index.ts'],
          },
        }),
    ...options.compilerOptions,
  };
  const program = ts.createProgram({ rootNames: [...files], options: compilerOptions });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const host: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => repoRoot,
    getNewLine: () => '\n',
  };
  return diagnostics.map((d) => ts.formatDiagnostic(d, host).trim());
}

/**
 * Takes `// @ts-nocheck` off a generated contract.ts, so the next `typecheck` proves its literal
 * against `Contract<Events>` (cheap, unlike lifting it from schemas.ts, whose zod inference on
 * large specs takes minutes).
 */
export function checkContractLiteral(folder: string): void {
  const file = path.join(folder, 'contract.ts');
  const text = readFileSync(file, 'utf8');
  if (!text.includes(NOCHECK_LINE)) throw new Error(`${file} has no @ts-nocheck line to lift`);
  writeFileSync(file, text.replace(NOCHECK_LINE, ''));
}
