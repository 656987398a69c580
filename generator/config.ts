/**
 * `gen-webhooks.config.{ts,mts,js,mjs,json}`: the same options as the CLI flags, for projects that
 * generate from several contracts. Relative paths in a config file are relative to the file.
 */

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SignatureConfig } from '@gen-webhooks/runtime';
import type { ZodFlavor } from './emit/index.js';
import { type PackageInfo, validatePackageInfo } from './emit/package/info.js';
import { GeneratorError } from './errors.js';
import type { FormatOption } from './format.js';
import type { ModuleFormOption } from './module-form.js';
import { signatureFromConfig } from './parse/signature-spec.js';

export type RuntimeMode = 'package' | 'inline';

/** `package` in a config: package.json metadata, and `dir` to write SDK packages there (like `--package`). */
export interface PackageConfig extends PackageInfo {
  /** Write one npm package folder per contract into this directory (`--package <dir>`). */
  readonly dir?: string;
}

export interface GenerateConfig {
  /** Contract files or directories (every contract in a directory). */
  readonly inputs?: readonly string[];
  /** Output directory; one folder per contract is written inside it. Default `generated`. */
  readonly out?: string;
  /** `package` imports `@gen-webhooks/runtime`; `inline` copies the runtime into each contract folder. */
  readonly runtime?: RuntimeMode;
  /** Allow `$ref`s to http(s) URLs. */
  readonly allowRemoteRefs?: boolean;
  /** Directory local `$ref`s may read below; default: each contract's own directory. */
  readonly refRoot?: string;
  /** Print errors only. */
  readonly quiet?: boolean;
  /** `classic` (default) or `mini`: schemas.ts imports `zod/mini` (smaller bundles, same validation). */
  readonly zod?: ZodFlavor;
  /**
   * `auto` (default), `js` or `ts`: schemas, validators and contract as `.js` + `.d.ts`, or as `.ts`
   * for projects that build with tsc (which copies no .js source). `auto` reads the tsconfig.json
   * above `out`.
   */
  readonly dataModules?: ModuleFormOption;
  /** SDK package metadata (and `dir`); see docs/sdk.md. */
  readonly package?: PackageConfig;
  /** The contract's previous version, for the package's version bump and CHANGELOG (`--previous`). */
  readonly previous?: string;
  /**
   * Signature scheme per contract name (`*`: every contract), over what the documents declare:
   * `standard-webhooks`, a preset name, `hmac:<header>,…` (see parse/signature-spec.ts) or a
   * SignatureConfig object.
   */
  readonly signatures?: { readonly [contract: string]: SignatureConfig | string };
  /** Formatter the output goes through before `--check` compares or files are written. */
  readonly format?: FormatOption;
}

/** Identity helper for typed config files: `export default defineConfig({ ... })`. */
export function defineConfig(config: GenerateConfig): GenerateConfig {
  return config;
}

export const CONFIG_NAMES = [
  'gen-webhooks.config.ts',
  'gen-webhooks.config.mts',
  'gen-webhooks.config.js',
  'gen-webhooks.config.mjs',
  'gen-webhooks.config.json',
] as const;

/** The config file in `dir` when there is one. */
export function findConfig(dir: string): string | undefined {
  for (const name of CONFIG_NAMES) {
    const file = path.join(dir, name);
    if (existsSync(file)) return file;
  }
  return undefined;
}

function invalid(file: string, message: string, expected?: string): GeneratorError {
  return new GeneratorError('invalid_config', message, expected ? { file, expected } : { file });
}

function validate(file: string, raw: unknown): GenerateConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalid(file, 'the config must export an object', '`export default { inputs, out, runtime }`');
  }
  const known = new Set([
    'inputs',
    'out',
    'runtime',
    'allowRemoteRefs',
    'refRoot',
    'quiet',
    'zod',
    'dataModules',
    'package',
    'previous',
    'signatures',
    'format',
  ]);
  const value = raw as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    if (!known.has(key)) throw invalid(file, `unknown config option '${key}'`, [...known].join(', '));
  }
  const dir = path.dirname(file);
  const config: {
    -readonly [K in keyof GenerateConfig]: K extends 'signatures'
      ? { [contract: string]: SignatureConfig }
      : GenerateConfig[K];
  } = {};
  if (value.inputs !== undefined) {
    const inputs = typeof value.inputs === 'string' ? [value.inputs] : value.inputs;
    if (!Array.isArray(inputs) || !inputs.every((i) => typeof i === 'string')) {
      throw invalid(file, '`inputs` must be a list of paths', 'string[]');
    }
    config.inputs = inputs.map((i: string) => (/^https?:\/\//.test(i) ? i : path.resolve(dir, i)));
  }
  if (value.out !== undefined) {
    if (typeof value.out !== 'string') throw invalid(file, '`out` must be a path', 'a string');
    config.out = path.resolve(dir, value.out);
  }
  if (value.refRoot !== undefined) {
    if (typeof value.refRoot !== 'string') throw invalid(file, '`refRoot` must be a path', 'a string');
    config.refRoot = path.resolve(dir, value.refRoot);
  }
  if (value.runtime !== undefined) {
    if (value.runtime !== 'package' && value.runtime !== 'inline') {
      throw invalid(file, `invalid runtime '${String(value.runtime)}'`, "'package' or 'inline'");
    }
    config.runtime = value.runtime;
  }
  if (value.zod !== undefined) {
    if (value.zod !== 'classic' && value.zod !== 'mini') {
      throw invalid(file, `invalid zod flavour '${String(value.zod)}'`, "'classic' or 'mini'");
    }
    config.zod = value.zod;
  }
  if (value.dataModules !== undefined) {
    if (value.dataModules !== 'auto' && value.dataModules !== 'js' && value.dataModules !== 'ts') {
      throw invalid(file, `invalid dataModules form '${String(value.dataModules)}'`, "'auto', 'js' or 'ts'");
    }
    config.dataModules = value.dataModules;
  }
  if (value.previous !== undefined) {
    if (typeof value.previous !== 'string') throw invalid(file, '`previous` must be a path', 'a string');
    config.previous = /^https?:\/\//.test(value.previous)
      ? value.previous
      : path.resolve(dir, value.previous);
  }
  if (value.package !== undefined) {
    const { dir: packageDir, ...info } =
      typeof value.package === 'object' && value.package !== null
        ? (value.package as Record<string, unknown>)
        : {};
    if (packageDir !== undefined && typeof packageDir !== 'string') {
      throw invalid(file, '`package.dir` must be a path', 'a string');
    }
    const validated = validatePackageInfo(
      typeof value.package === 'object' && value.package !== null ? info : value.package,
      file,
    );
    config.package =
      packageDir === undefined ? validated : { ...validated, dir: path.resolve(dir, packageDir) };
  }
  if (value.signatures !== undefined) config.signatures = validateSignatures(file, value.signatures);
  if (value.format !== undefined) {
    const f = value.format;
    const command = typeof f === 'object' && f !== null ? (f as { command?: unknown }).command : undefined;
    if (f !== 'prettier' && f !== 'biome' && !(typeof command === 'string' && command.trim() !== '')) {
      throw invalid(
        file,
        '`format` is not a formatter',
        "'prettier', 'biome' or { command: 'dprint fmt {dir}' }",
      );
    }
    config.format = typeof command === 'string' ? { command } : (f as 'prettier' | 'biome');
  }
  for (const flag of ['allowRemoteRefs', 'quiet'] as const) {
    if (value[flag] !== undefined) {
      if (typeof value[flag] !== 'boolean')
        throw invalid(file, `\`${flag}\` must be a boolean`, 'true or false');
      config[flag] = value[flag];
    }
  }
  return config;
}

function validateSignatures(file: string, raw: unknown): { [contract: string]: SignatureConfig } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw invalid(
      file,
      '`signatures` must map contract names to schemes',
      "{ 'up-api': 'hmac:X-Up-Authenticity-Signature,sha256,hex' }",
    );
  }
  const out: { [contract: string]: SignatureConfig } = {};
  for (const [contract, scheme] of Object.entries(raw)) {
    try {
      out[contract] = signatureFromConfig(scheme, `signatures['${contract}']`);
    } catch (error) {
      if (error instanceof GeneratorError) throw invalid(file, error.message, error.expected);
      throw error;
    }
  }
  return out;
}

/** A TypeScript module through jiti (transpiled in memory; its own imports resolve as usual). */
export async function importTypeScript(file: string): Promise<{ default?: unknown }> {
  const { createJiti } = await import('jiti');
  const jiti = createJiti(pathToFileURL(file).href, { interopDefault: false, moduleCache: false });
  return (await jiti.import(file)) as { default?: unknown };
}

/** Loads and validates a config file (`.json`, `.js`/`.mjs`, `.ts`/`.mts`/`.cts`). */
export async function loadConfig(file: string): Promise<GenerateConfig> {
  const abs = path.resolve(file);
  if (!existsSync(abs)) throw new GeneratorError('file_not_found', 'config file not found', { file });
  const ext = path.extname(abs);
  if (ext === '.json') {
    try {
      return validate(file, JSON.parse(readFileSync(abs, 'utf8')));
    } catch (error) {
      if (error instanceof GeneratorError) throw error;
      throw invalid(file, `invalid JSON: ${(error as Error).message}`);
    }
  }
  if (!['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts'].includes(ext)) {
    throw invalid(file, `unsupported config file type '${ext}'`, '.ts, .mts, .js, .mjs or .json');
  }
  let mod: { default?: unknown };
  try {
    // TypeScript configs go through jiti, so a plain `node` (20+) loads them without a loader flag.
    mod = ['.ts', '.mts', '.cts'].includes(ext)
      ? await importTypeScript(abs)
      : ((await import(pathToFileURL(abs).href)) as { default?: unknown });
  } catch (error) {
    throw invalid(file, `cannot load config: ${(error as Error).message}`);
  }
  return validate(file, mod.default);
}
