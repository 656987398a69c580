/**
 * The programmatic `generate()`: load contracts → emit every file in memory → diff against disk →
 * write atomically (or, with `check`, only report). Any GeneratorError is thrown before anything is
 * written, so a failing run leaves the previous output untouched.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { RuntimeMode } from './config.js';
import { emitContract } from './emit/index.js';
import { type Diagnostic, GeneratorError } from './errors.js';
import { inlineRuntimeFiles } from './inline-runtime.js';
import type { ContractModel } from './model.js';
import { loadContracts } from './parse/index.js';
import { diffOutput, type FolderDiff, type OutputFolder, writeOutput } from './write.js';

export interface GenerateOptions {
  /** Contract files or directories (every contract in a directory). */
  readonly inputs: readonly string[];
  /** Output directory. Default `generated` (relative to `cwd`). */
  readonly out?: string;
  /** `package` (default) imports `@gen-webhooks/runtime`; `inline` copies the runtime into each folder. */
  readonly runtime?: RuntimeMode;
  /** Report what would change and write nothing. */
  readonly check?: boolean;
  /** Allow `$ref`s to http(s) URLs. */
  readonly allowRemoteRefs?: boolean;
  /**
   * Directory local `$ref`s may read below (relative to `cwd`). Default: the directory of each
   * contract file, so a contract cannot read `../../secret.json` or `/etc/passwd` into its types.
   */
  readonly refRoot?: string;
  /** Base for relative paths and for the input path in each file's header. Default `process.cwd()`. */
  readonly cwd?: string;
  /** Omit `// @ts-nocheck` from types/schemas/contract/fixtures (see EmitOptions.checkAll); for the generator's tests. */
  readonly checkAll?: boolean;
}

export interface GeneratedContract {
  readonly name: string;
  readonly title: string;
  /** Input path as written in the headers (relative to `cwd`, `/`-separated). */
  readonly file: string;
  readonly format: ContractModel['format'];
  readonly events: readonly string[];
  /** Files of this contract, relative to the out dir. */
  readonly files: readonly string[];
  readonly model: ContractModel;
}

export interface GenerateResult {
  readonly out: string;
  readonly contracts: readonly GeneratedContract[];
  /** Every generated file, relative to the out dir, sorted. */
  readonly files: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
  /** Files written (or, with `check`, that would be written or removed), relative to the out dir. */
  readonly changed: readonly string[];
  readonly changes: readonly FolderDiff[];
}

let cachedVersion: string | undefined;

/** This package's version, for file headers. */
export function generatorVersion(): string {
  if (cachedVersion === undefined) {
    const req = createRequire(import.meta.url);
    // ../ from generator/ (sources), ../../ from dist/generator/ (build).
    let pkg: { version: string };
    try {
      pkg = req('../package.json') as { version: string };
    } catch {
      pkg = req('../../package.json') as { version: string };
    }
    cachedVersion = pkg.version;
  }
  return cachedVersion;
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

/**
 * The input path written in headers: relative to cwd, so output does not depend on the machine.
 * `file` is a loader path (see loaderPath), i.e. relative to the process's cwd, not to `cwd`.
 */
function displayPath(file: string, cwd: string): string {
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(file)) return file;
  const rel = path.relative(cwd, path.resolve(file));
  return toPosix(rel === '' ? path.basename(file) : rel);
}

/**
 * The path handed to the loader, which resolves against process.cwd() and shows paths as given:
 * relative when the file is under the process's cwd (short messages), absolute otherwise.
 */
function loaderPath(input: string, cwd: string): string {
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(input)) return input;
  const abs = path.resolve(cwd, input);
  const rel = path.relative(process.cwd(), abs);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : abs;
}

/** Emits every contract in memory: one OutputFolder per contract. */
export function emitAll(
  contracts: readonly ContractModel[],
  options: { readonly runtime: RuntimeMode; readonly cwd: string; readonly checkAll?: boolean },
): { folders: OutputFolder[]; diagnostics: Diagnostic[] } {
  const version = generatorVersion();
  const folders: OutputFolder[] = [];
  const diagnostics: Diagnostic[] = [];
  const seen = new Map<string, string>();
  for (const model of contracts) {
    const other = seen.get(model.name);
    if (other !== undefined) {
      throw new GeneratorError('identifier_collision', `two contracts are both named '${model.name}'`, {
        file: model.file,
        expected: `distinct file names (the other is ${other})`,
      });
    }
    seen.set(model.name, model.file);
    const emitted = emitContract(model, {
      version,
      source: displayPath(model.file, options.cwd),
      runtimeImport: options.runtime === 'inline' ? './runtime/index.js' : '@gen-webhooks/runtime',
      checkAll: options.checkAll === true,
    });
    const files = new Map(emitted.files);
    if (options.runtime === 'inline') {
      for (const [rel, text] of inlineRuntimeFiles(version)) files.set(`runtime/${rel}`, text);
    }
    folders.push({ folder: model.name, files });
    diagnostics.push(...emitted.diagnostics);
  }
  return { folders, diagnostics };
}

export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const runtime = options.runtime ?? 'package';
  if (runtime !== 'package' && runtime !== 'inline') {
    throw new GeneratorError('invalid_argument', `invalid runtime mode '${String(runtime)}'`, {
      expected: "'package' or 'inline'",
    });
  }
  if (options.inputs.length === 0) {
    throw new GeneratorError('invalid_argument', 'no contract files given', {
      expected: 'a file or directory',
    });
  }
  const out = path.resolve(cwd, options.out ?? 'generated');
  const inputs = options.inputs.map((input) => loaderPath(input, cwd));
  const loaded = await loadContracts(inputs, {
    allowRemoteRefs: options.allowRemoteRefs ?? false,
    ...(options.refRoot !== undefined ? { refRoot: path.resolve(cwd, options.refRoot) } : {}),
  });
  const { folders, diagnostics } = emitAll(loaded.contracts, {
    runtime,
    cwd,
    checkAll: options.checkAll === true,
  });
  const changes = options.check ? diffOutput(out, folders) : writeOutput(out, folders);
  const contracts = loaded.contracts.map((model, i): GeneratedContract => {
    const folder = folders[i] as OutputFolder;
    return {
      name: model.name,
      title: model.title,
      file: displayPath(model.file, cwd),
      format: model.format,
      events: model.events.map((e) => e.name),
      files: [...folder.files.keys()].map((rel) => `${folder.folder}/${rel}`).sort(),
      model,
    };
  });
  return {
    out,
    contracts,
    files: contracts.flatMap((c) => c.files).sort(),
    diagnostics: [...loaded.diagnostics, ...diagnostics],
    changed: changes.flatMap((d) => d.changes.map((c) => c.path)),
    changes,
  };
}
