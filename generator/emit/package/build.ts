/**
 * dist/ of an SDK package: the generated src/ compiled in memory with the TypeScript compiler API
 * (ESM JavaScript + `.d.ts`), nothing written until the whole package is ready. TypeScript is the
 * app's (an optional peer of gen-webhooks), loaded only when `--package` is used. `@gen-webhooks/runtime`
 * and `zod` resolve from the package folder upwards, else from gen-webhooks' own installation.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as TS from 'typescript';
import { GeneratorError } from '../../errors.js';

type Typescript = typeof TS;

let loaded: Typescript | undefined;

async function typescript(): Promise<Typescript> {
  if (loaded === undefined) {
    try {
      const mod = (await import('typescript')) as Typescript & { default?: Typescript };
      loaded = mod.default ?? mod;
    } catch (cause) {
      throw new GeneratorError(
        'invalid_argument',
        '--package builds dist/ with TypeScript, which is not installed',
        {
          expected: 'typescript >= 5 in the project (npm install -D typescript)',
          cause,
        },
      );
    }
  }
  return loaded;
}

/** Files whose errors fail the build: the ones a consumer's tsc checks too (see EmitOptions.checkAll). */
const CHECKED = /^(sender|receiver|index|runtime)\.ts$/;

/**
 * Compiles `src` (path inside src/ → text) as if it were `<dir>/src/`; returns dist/ (path inside
 * dist/ → text). Throws a GeneratorError listing the diagnostics of the always-checked files.
 */
export async function buildDist(
  dir: string,
  src: ReadonlyMap<string, string>,
  packageJson: string,
): Promise<Map<string, string>> {
  const ts = await typescript();
  const root = path.resolve(dir, 'src');
  const files = new Map<string, string>();
  for (const [rel, textValue] of src) files.set(path.join(root, ...rel.split('/')), textValue);
  // The package's own package.json (`type: module`) makes NodeNext emit ESM, as it will be read.
  files.set(path.resolve(dir, 'package.json'), packageJson);
  const options: TS.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    rootDir: root,
    outDir: path.resolve(dir, 'dist'),
    declaration: true,
    strict: true,
    skipLibCheck: true,
    types: [],
    newLine: ts.NewLineKind.LineFeed,
  };
  const host = ts.createCompilerHost(options, true);
  const fallback = fileURLToPath(import.meta.url);
  const out = new Map<string, string>();
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (file) => files.get(path.resolve(file)) ?? readFile(file);
  host.fileExists = (file) => files.has(path.resolve(file)) || fileExists(file);
  // src/ exists in memory only (the folder may not exist yet): its directories must too.
  const dirs = new Set<string>();
  for (const file of files.keys()) {
    for (let d = path.dirname(file); d !== path.dirname(d) && !dirs.has(d); d = path.dirname(d)) dirs.add(d);
  }
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = (d) => dirs.has(path.resolve(d)) || (directoryExists?.(d) ?? false);
  host.getSourceFile = (file, language, onError, create) => {
    const textValue = files.get(path.resolve(file));
    return textValue === undefined
      ? getSourceFile(file, language, onError, create)
      : ts.createSourceFile(file, textValue, language, true);
  };
  host.writeFile = (file, textValue) => {
    out.set(path.relative(path.resolve(dir, 'dist'), file).split(path.sep).join('/'), textValue);
  };
  // A package folder outside any project has no node_modules: resolve bare specifiers from here too.
  host.resolveModuleNameLiterals = (literals, containingFile, _ref, compilerOptions) =>
    literals.map((literal) => {
      const first = ts.resolveModuleName(literal.text, containingFile, compilerOptions, host);
      if (first.resolvedModule !== undefined || literal.text.startsWith('.')) return first;
      return ts.resolveModuleName(literal.text, fallback, compilerOptions, host);
    });
  const rootNames = [...files.keys()].filter((file) => file.endsWith('.ts'));
  const program = ts.createProgram({ rootNames, options, host });
  const emitted = program.emit();
  const problems = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].filter((d) => {
    if (d.file === undefined) return d.category === ts.DiagnosticCategory.Error;
    const rel = path.relative(root, d.file.fileName).split(path.sep).join('/');
    return d.category === ts.DiagnosticCategory.Error && CHECKED.test(rel);
  });
  if (problems.length > 0) {
    const messages = problems.slice(0, 5).map((d) => {
      const where = d.file ? `${path.relative(root, d.file.fileName)}: ` : '';
      return `${where}${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
    throw new GeneratorError('check_failed', `the SDK package does not compile: ${messages.join('; ')}`, {
      file: path.join(dir, 'src'),
      expected: 'a runtime (@gen-webhooks/runtime) of the version this generator was built with',
    });
  }
  // Modules written as JavaScript with their declarations (validators.js) are dist/ as they are.
  for (const [rel, text] of src) if (rel.endsWith('.js') || rel.endsWith('.d.ts')) out.set(rel, text);
  return out;
}
