/**
 * Runs a compile-only type test file (`*.test-d.ts`) the way `npm run typecheck` does (this repo's
 * tsconfig.json) and checks its `@ts-expect-error` lines. Each must name the error it expects,
 * `// @ts-expect-error TS2353 why`: the file is compiled as written (no diagnostic allowed; tsc
 * reports an unneeded directive as TS2578) and once more with the directives blanked, where each
 * directive's next line must then report its code. A directive satisfied by some other error (a
 * typo, a missing import) fails the second check.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { repoRoot } from './typecheck.js';

export interface Directive {
  /** 1-based line of the `@ts-expect-error` comment. */
  readonly line: number;
  /** The expected code (`TS2353` → 2353), or undefined when the directive names none. */
  readonly code: number | undefined;
  /** Optional `` `fragment` `` after the code that the error message (with its chain) must contain. */
  readonly fragment: string | undefined;
  readonly text: string;
}

export interface ReportedError {
  readonly code: number;
  /** The message with its chain, one level per line. */
  readonly message: string;
}

export interface TypeTestResult {
  /** Diagnostics of the file as written, formatted. */
  readonly diagnostics: readonly string[];
  /** Per directive line: the errors reported on the next line once the directives are removed. */
  readonly uncovered: ReadonlyMap<number, readonly ReportedError[]>;
}

const DIRECTIVE = /^\s*\/\/\s*@ts-expect-error\b(.*)$/;

/** The `@ts-expect-error` lines of a file (read without compiling, for test names). */
export function directives(file: string): Directive[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((text, index) => {
      const match = DIRECTIVE.exec(text);
      if (match === null) return [];
      const named = /^\s+TS(\d+)\b(?:\s+`([^`]+)`)?/.exec(match[1] ?? '');
      return [
        {
          line: index + 1,
          code: named?.[1] === undefined ? undefined : Number(named[1]),
          fragment: named?.[2],
          text: text.trim(),
        },
      ];
    });
}

function compilerOptions(): ts.CompilerOptions {
  const configFile = path.join(repoRoot, 'tsconfig.json');
  const read = ts.readConfigFile(configFile, ts.sys.readFile);
  if (read.error !== undefined)
    throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(read.config, ts.sys, repoRoot, undefined, configFile).options;
}

const formatHost: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => repoRoot,
  getNewLine: () => '\n',
};

export function checkTypeTests(file: string): TypeTestResult {
  const target = path.resolve(file);
  const options = compilerOptions();
  const original = readFileSync(target, 'utf8');
  // Same length, same lines: only the directive word changes, so positions stay put.
  const blanked = original.replace(/@ts-expect-error\b/g, (word) => '@'.padEnd(word.length, '_'));

  const compile = (text: string, oldProgram?: ts.Program) => {
    const host = ts.createCompilerHost(options);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (name, languageVersion, onError, shouldCreate) =>
      path.resolve(name) === target
        ? ts.createSourceFile(name, text, languageVersion, true)
        : getSourceFile(name, languageVersion, onError, shouldCreate);
    const program = ts.createProgram({
      rootNames: [target],
      options,
      host,
      ...(oldProgram ? { oldProgram } : {}),
    });
    const source = program.getSourceFile(target);
    if (source === undefined) throw new Error(`${file} is not part of its own program`);
    return {
      program,
      source,
      diagnostics: [
        ...program.getOptionsDiagnostics(),
        ...program.getGlobalDiagnostics(),
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      ],
    };
  };

  const asWritten = compile(original);
  const without = compile(blanked, asWritten.program);
  const uncovered = new Map<number, ReportedError[]>();
  for (const d of without.diagnostics) {
    if (d.file === undefined || d.start === undefined) continue;
    const line = d.file.getLineAndCharacterOfPosition(d.start).line + 1;
    // Reported on line N + 1 → belongs to the directive on line N.
    const errors = uncovered.get(line - 1) ?? [];
    errors.push({ code: d.code, message: ts.flattenDiagnosticMessageText(d.messageText, '\n') });
    uncovered.set(line - 1, errors);
  }
  return {
    diagnostics: asWritten.diagnostics.map((d) => ts.formatDiagnostic(d, formatHost).trim()),
    uncovered,
  };
}
