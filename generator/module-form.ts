/**
 * Which form the data modules (schemas, validators, contract) are written in. `js` (each a .js
 * beside a .d.ts) keeps GitHub-sized code out of a consumer's tsc, which parses and binds every .ts
 * file it reaches; but `tsc` never copies a .js source it does not compile, so a project that
 * builds with tsc would run without them. `ts` (.ts files) is compiled with the rest. `auto` picks `js`
 * only when no tsc build of the output can drop it: no tsconfig.json above the output, or one that
 * does not emit JavaScript (`noEmit`, `emitDeclarationOnly`) — a bundler, tsx, Bun or Deno runs
 * the .js as it is.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export type ModuleForm = 'js' | 'ts';
export type ModuleFormOption = ModuleForm | 'auto';

export interface ModuleFormChoice {
  readonly form: ModuleForm;
  /** Why, in a phrase, for the CLI's output. */
  readonly reason: string;
}

/** The form for output written to `out`: explicit, or (`auto`) from the tsconfig.json above it. */
export function chooseModuleForm(option: ModuleFormOption, out: string): ModuleFormChoice {
  if (option !== 'auto') return { form: option, reason: `dataModules: '${option}'` };
  const tsconfig = nearestTsconfig(path.resolve(out));
  if (tsconfig === undefined) return { form: 'js', reason: 'no tsconfig.json above the output' };
  const rel = path.relative(process.cwd(), tsconfig) || tsconfig;
  const emits = emitsJavaScript(tsconfig, new Set());
  if (emits === false) return { form: 'js', reason: `${rel} does not emit JavaScript` };
  return {
    form: 'ts',
    reason:
      emits === true
        ? `${rel} emits JavaScript with tsc, which copies no .js source`
        : `${rel} could not be read to the end (${emits.unknown}), so tsc may emit JavaScript`,
  };
}

function nearestTsconfig(from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'tsconfig.json');
    if (existsSync(file)) return file;
    if (path.dirname(dir) === dir) return undefined;
  }
}

interface TsconfigJson {
  readonly extends?: unknown;
  readonly compilerOptions?: { readonly noEmit?: unknown; readonly emitDeclarationOnly?: unknown };
  readonly files?: unknown;
  readonly references?: unknown;
}

/**
 * Whether tsc emits JavaScript for this config: `true`, `false`, or what stopped the answer. A
 * solution-style config (`files: []` with references) emits what its references emit.
 */
function emitsJavaScript(file: string, seen: Set<string>): boolean | { unknown: string } {
  if (seen.has(file)) return { unknown: `${file} extends itself` };
  seen.add(file);
  let config: TsconfigJson;
  try {
    config = JSON.parse(stripJsonc(readFileSync(file, 'utf8'))) as TsconfigJson;
  } catch {
    return { unknown: `${file} is not JSON` };
  }
  if (Array.isArray(config.files) && config.files.length === 0 && Array.isArray(config.references)) {
    let any: boolean | { unknown: string } = false;
    for (const ref of config.references as { path?: unknown }[]) {
      const target = typeof ref?.path === 'string' ? referencedConfig(file, ref.path) : undefined;
      const emits =
        target === undefined ? { unknown: 'a reference has no config' } : emitsJavaScript(target, seen);
      if (emits !== false) any = emits;
      if (emits === true) break;
    }
    return any;
  }
  const options = config.compilerOptions ?? {};
  if (options.noEmit === true || options.emitDeclarationOnly === true) return false;
  if (options.noEmit === false || options.emitDeclarationOnly === false) return true;
  const bases = typeof config.extends === 'string' ? [config.extends] : config.extends;
  if (!Array.isArray(bases)) return true;
  // Later bases win, as in tsc.
  for (const base of [...bases].reverse()) {
    const target = typeof base === 'string' ? extendedConfig(file, base) : undefined;
    if (target === undefined) return { unknown: `cannot resolve extends ${JSON.stringify(base)}` };
    const emits = emitsJavaScript(target, seen);
    if (emits !== true) return emits;
  }
  return true;
}

function referencedConfig(from: string, ref: string): string | undefined {
  const target = path.resolve(path.dirname(from), ref);
  if (existsSync(target) && statSync(target).isDirectory()) {
    const inside = path.join(target, 'tsconfig.json');
    return existsSync(inside) ? inside : undefined;
  }
  return existsSync(target) ? target : undefined;
}

function extendedConfig(from: string, spec: string): string | undefined {
  if (spec.startsWith('.') || path.isAbsolute(spec)) {
    const target = path.resolve(path.dirname(from), spec);
    for (const candidate of [target, `${target}.json`]) {
      if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
    }
    return undefined;
  }
  const require = createRequire(from);
  for (const candidate of [spec, `${spec}.json`, `${spec}/tsconfig.json`]) {
    try {
      return require.resolve(candidate);
    } catch {
      // next form
    }
  }
  return undefined;
}

/** JSON with comments and trailing commas (tsconfig's dialect) → JSON. */
export function stripJsonc(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
      out += ' ';
    } else {
      // A comma before a closing bracket is trailing (strings were copied whole above).
      if (c === '}' || c === ']') out = out.replace(/,(\s*)$/, '$1');
      out += c;
    }
  }
  return out;
}
