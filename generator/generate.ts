/**
 * The programmatic `generate()`: load contracts → emit every file in memory → diff against disk →
 * write atomically (or, with `check`, only report). Any GeneratorError is thrown before anything is
 * written, so a failing run leaves the previous output untouched.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { SignatureConfig } from '@gen-webhooks/runtime';
import type { RuntimeMode } from './config.js';
import { emitContract, RUNTIME_PACKAGE_IMPORT, type ZodFlavor } from './emit/index.js';
import { diffPackage, emitPackage, type PackageInfo, writePackage } from './emit/package/index.js';
import { type Diagnostic, GeneratorError } from './errors.js';
import { type FormatOption, formatFolders } from './format.js';
import { inlineRuntimeFiles } from './inline-runtime.js';
import type { ContractModel } from './model.js';
import {
  chooseModuleForm,
  type ModuleForm,
  type ModuleFormChoice,
  type ModuleFormOption,
} from './module-form.js';
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
  /** `classic` (default) or `mini`: schemas in `zod/mini`'s functional form. */
  readonly zod?: ZodFlavor;
  /**
   * Write an npm package folder per contract into this directory (`<package>/<contract>/`) instead
   * of module folders into `out` (see docs/sdk.md).
   */
  readonly package?: string;
  /** package.json metadata for `package`. */
  readonly packageInfo?: PackageInfo;
  /** The previous version of the contract (a file): the package's version bump and CHANGELOG entry. */
  readonly previous?: string;
  /** Signature scheme per contract name (`*`: every contract), over what the documents declare. */
  readonly signatures?: { readonly [contract: string]: SignatureConfig };
  /** Run the output through the project's formatter before comparing or writing (see format.ts). */
  readonly format?: FormatOption;
  /**
   * schemas, validators and contract as `.js` + `.d.ts` (`js`) or `.ts` (`ts`). Default `auto`:
   * `ts` when the tsconfig.json above `out` builds with tsc, which copies no .js source (see
   * module-form.ts). Packages always use `js` (their build copies it).
   */
  readonly dataModules?: ModuleFormOption;
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
  /** With `package`: the npm package written, its version and (with `previous`) the bump. */
  readonly package?: { readonly name: string; readonly version: string; readonly bump?: string };
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
  /** The form the data modules were written in, and why. */
  readonly moduleForm: ModuleFormChoice;
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
  options: {
    readonly runtime: RuntimeMode;
    readonly cwd: string;
    readonly checkAll?: boolean;
    readonly zod?: ZodFlavor;
    readonly dataModules?: ModuleForm;
  },
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
      runtimeImport: options.runtime === 'inline' ? './runtime/index.js' : RUNTIME_PACKAGE_IMPORT,
      checkAll: options.checkAll === true,
      zod: options.zod ?? 'classic',
      dataModules: options.dataModules ?? 'js',
    });
    const files = new Map(emitted.files);
    if (options.runtime === 'inline') {
      for (const [rel, text] of inlineRuntimeFiles(version, model)) files.set(`runtime/${rel}`, text);
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
  const formOption = options.dataModules ?? 'auto';
  if (formOption !== 'auto' && formOption !== 'js' && formOption !== 'ts') {
    throw new GeneratorError('invalid_argument', `invalid data module form '${String(formOption)}'`, {
      expected: "'auto', 'js' or 'ts'",
    });
  }
  const moduleForm: ModuleFormChoice =
    options.package === undefined
      ? chooseModuleForm(formOption, out)
      : { form: 'js', reason: 'a package builds its dist/ from the .js modules' };
  const inputs = options.inputs.map((input) => loaderPath(input, cwd));
  const signatures = options.signatures;
  const loaded = await loadContracts(inputs, {
    allowRemoteRefs: options.allowRemoteRefs ?? false,
    ...(options.refRoot !== undefined ? { refRoot: path.resolve(cwd, options.refRoot) } : {}),
    ...(signatures ? { signature: ({ name }) => signatures[name] ?? signatures['*'] } : {}),
  });
  const emitted = emitAll(loaded.contracts, {
    runtime,
    cwd,
    checkAll: options.checkAll === true,
    ...(options.zod === undefined ? {} : { zod: options.zod }),
    dataModules: moduleForm.form,
  });
  const { diagnostics } = emitted;
  const folders =
    options.format === undefined
      ? emitted.folders
      : await formatFolders(emitted.folders, options.format, { out, cwd });
  if (options.package !== undefined) {
    return generatePackages(options, {
      cwd,
      runtime,
      contracts: loaded.contracts,
      folders,
      diagnostics: [...loaded.diagnostics, ...diagnostics],
    });
  }
  if (options.previous !== undefined || options.packageInfo !== undefined) {
    throw new GeneratorError('invalid_argument', '--previous and package metadata apply to --package only', {
      expected: '--package <dir>',
    });
  }
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
    moduleForm,
  };
}

function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** The previous contract paired with each new one: by name, or the only one with the only one. */
async function previousModels(
  file: string,
  cwd: string,
  contracts: readonly ContractModel[],
): Promise<Map<string, ContractModel>> {
  const loaded = await loadContracts([loaderPath(file, cwd)], { allowRemoteRefs: false });
  const pairs = new Map<string, ContractModel>();
  const [only] = loaded.contracts;
  if (contracts.length === 1 && loaded.contracts.length === 1 && only) {
    pairs.set((contracts[0] as ContractModel).name, only);
    return pairs;
  }
  for (const model of contracts) {
    const old = loaded.contracts.find((c) => c.name === model.name);
    if (old === undefined) {
      throw new GeneratorError('invalid_argument', `--previous has no contract named '${model.name}'`, {
        file,
        expected: 'one previous contract per generated contract, with the same file name',
      });
    }
    pairs.set(model.name, old);
  }
  return pairs;
}

/** `--package`: one npm package folder per contract, built in memory first, then written (or diffed). */
async function generatePackages(
  options: GenerateOptions,
  state: {
    readonly cwd: string;
    readonly runtime: RuntimeMode;
    readonly contracts: readonly ContractModel[];
    readonly folders: readonly OutputFolder[];
    readonly diagnostics: Diagnostic[];
  },
): Promise<GenerateResult> {
  const out = path.resolve(state.cwd, options.package ?? 'packages');
  const info = options.packageInfo ?? {};
  if (info.name !== undefined && state.contracts.length > 1) {
    throw new GeneratorError('invalid_argument', 'one package name was given for several contracts', {
      expected: 'one contract per run when package.name is set (or no name: <contract>-webhooks each)',
    });
  }
  const previous =
    options.previous === undefined
      ? undefined
      : await previousModels(options.previous, state.cwd, state.contracts);
  const version = generatorVersion();
  const built: {
    folder: string;
    files: ReadonlyMap<string, string>;
    package: NonNullable<GeneratedContract['package']>;
  }[] = [];
  for (const [i, model] of state.contracts.entries()) {
    const folder = state.folders[i] as OutputFolder;
    const dir = path.join(out, folder.folder);
    const source = displayPath(model.file, state.cwd);
    const old = previous?.get(model.name);
    const emitted = await emitPackage(model, folder.files, {
      dir,
      info,
      runtime: state.runtime,
      generatorVersion: version,
      source,
      header: `// Generated by gen-webhooks ${version} from ${source}. Do not edit.\n`,
      existing: {
        ...optional('packageJson', readIfExists(path.join(dir, 'package.json'))),
        ...optional('changelog', readIfExists(path.join(dir, 'CHANGELOG.md'))),
      },
      ...(old === undefined ? {} : { previous: old }),
    });
    built.push({
      folder: folder.folder,
      files: emitted.files,
      package: {
        name: emitted.name,
        version: emitted.version,
        ...(emitted.bump === undefined ? {} : { bump: emitted.bump }),
      },
    });
  }
  const changes: FolderDiff[] = [];
  for (const { folder, files } of built) {
    const dir = path.join(out, folder);
    const applied = options.check ? diffPackage(dir, files) : writePackage(dir, files);
    if (applied.length > 0)
      changes.push({ folder, changes: applied.map((c) => ({ ...c, path: `${folder}/${c.path}` })) });
  }
  const contracts = state.contracts.map((model, i): GeneratedContract => {
    const { folder, files, package: pkg } = built[i] as (typeof built)[number];
    return {
      name: model.name,
      title: model.title,
      file: displayPath(model.file, state.cwd),
      format: model.format,
      events: model.events.map((e) => e.name),
      files: [...files.keys()].map((rel) => `${folder}/${rel}`).sort(),
      model,
      package: pkg,
    };
  });
  return {
    out,
    contracts,
    files: contracts.flatMap((c) => c.files).sort(),
    diagnostics: state.diagnostics,
    changed: changes.flatMap((d) => d.changes.map((c) => c.path)),
    changes,
    moduleForm: { form: 'js', reason: 'a package builds its dist/ from the .js modules' },
  };
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}
