/**
 * `gen-webhooks [generate] <file|dir>... [options]`: the product's main command. Prints one line per
 * contract and a summary; `--check` compares instead of writing; `--watch` regenerates when an input
 * or a file it `$ref`s changes and keeps running through errors.
 */
import { type FSWatcher, statSync, watch as watchFs } from 'node:fs';
import path from 'node:path';
import type { SignatureConfig } from '@gen-webhooks/runtime';
import { findConfig, type GenerateConfig, loadConfig, type RuntimeMode } from '../config.js';
import type { ZodFlavor } from '../emit/index.js';
import { GeneratorError } from '../errors.js';
import { type FormatOption, parseFormat } from '../format.js';
import { type GenerateOptions, type GenerateResult, generate } from '../generate.js';
import type { ModuleFormOption } from '../module-form.js';
import { parseSignatureSpec } from '../parse/signature-spec.js';
import { booleanFlag, parseToolArgs, stringFlag } from '../tools/args.js';
import { createStyle, formatMs, processIo, type ToolIo, writeJson } from '../tools/output.js';
import type { Command } from './types.js';

const NAME = 'generate';

export const help = `Usage: gen-webhooks [generate] <file|dir>... [options]

Generate a typed webhook module (types, zod schemas, contract, sender, receiver, fixtures) per
contract. Inputs are OpenAPI 3.1 (webhooks), OpenAPI 3.0 (callbacks, x-webhooks) or AsyncAPI 2.x/3.x
documents in YAML or JSON; a directory means every contract in it. Each contract is written to
<out>/<contract-name>/ atomically: a failing run leaves the previous output untouched.

Options:
  -o, --out <dir>          Output directory (default: generated)
      --runtime <mode>     package: import '@gen-webhooks/runtime' (default)
                           inline: copy the runtime into <out>/<contract>/runtime/ so the generated
                           module depends on zod only
      --zod <flavour>      classic: schemas import 'zod' (default)
                           mini: schemas import 'zod/mini' (same validation, a fraction of the bundle)
      --data-modules <form>
                           schemas, validators and contract as:
                           auto: ts when the tsconfig.json above <out> builds with tsc, else js
                           (default)
                           js: .js beside a .d.ts (the fastest tsc for consumers; needs a toolchain
                           that runs .js beside .ts: a bundler, tsx, Bun, Deno, vitest)
                           ts: .ts files (tsc compiles and copies them)
      --package <dir>      Write an npm package per contract into <dir>/<contract>/ instead of <out>:
                           package.json, src/, a built dist/, README.md, LICENSE, a smoke test
                           (metadata from the config's \`package: { name, version, ... }\`)
      --previous <file>    With --package: the contract's previous version; bumps the package version
                           (major if receivers break, minor if additive, patch if docs only) and
                           writes a CHANGELOG.md entry from \`gen-webhooks diff\`
      --check              Write nothing; exit 1 and list the files when the output would change
  -w, --watch              Regenerate when an input (or a file it $refs) changes; Ctrl-C to stop
  -c, --config <file>      Load options from a config file (export default { inputs, out, runtime,
                           zod, dataModules, package, previous, allowRemoteRefs, refRoot, quiet, signatures,
                           format }): .js/.mjs/.json, and .ts/.mts on plain node too. Without inputs
                           (bare \`gen-webhooks\`), gen-webhooks.config.* in the current directory is
                           used when present. Flags override the config.
      --allow-remote-refs  Allow $refs to http(s) URLs (off by default)
      --ref-root <dir>     Let local $refs read any file below <dir> (default: only files below
                           the contract's own directory)
      --format <formatter> Run the output through prettier, biome, or a command (the generated files'
                           folder is given as {dir}, else appended) before --check compares or
                           files are written
      --signature [<contract>=]<scheme>
                           Signature scheme of a contract (all without <contract>=), over what its
                           document declares: standard-webhooks, none, a preset (stripe, github,
                           shopify, slack, twilio, discord, svix) or hmac:<header>[,sha256|sha1|
                           sha512][,hex|base64][,prefix=…][,timestamp=<header>][,id=<header>]
                           [,signed=<template>]; repeatable
  -q, --quiet              Print errors only
      --json               Print one JSON result object on stdout
  -h, --help               Show this help

Exit codes:
  0  success (with --check: output is up to date)
  1  --check: the output would change
  2  bad input or usage (invalid YAML/JSON, missing $ref target, unsupported version, no events,
     unknown flag); nothing is written`;

const OPTIONS = {
  out: { type: 'string', short: 'o' },
  runtime: { type: 'string' },
  zod: { type: 'string' },
  'data-modules': { type: 'string' },
  package: { type: 'string' },
  previous: { type: 'string' },
  check: { type: 'boolean' },
  watch: { type: 'boolean', short: 'w' },
  config: { type: 'string', short: 'c' },
  'allow-remote-refs': { type: 'boolean' },
  'ref-root': { type: 'string' },
  signature: { type: 'string', multiple: true },
  format: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  json: { type: 'boolean' },
} as const;

interface Invocation {
  readonly options: GenerateOptions;
  readonly check: boolean;
  readonly watch: boolean;
  readonly quiet: boolean;
  readonly json: boolean;
}

async function resolveInvocation(argv: readonly string[], cwd: string): Promise<Invocation> {
  const args = parseToolArgs(NAME, argv, OPTIONS);
  const configFile =
    stringFlag(args, 'config') ?? (args.positionals.length === 0 ? findConfig(cwd) : undefined);
  const config: GenerateConfig = configFile ? await loadConfig(path.resolve(cwd, configFile)) : {};
  const inputs = args.positionals.length > 0 ? [...args.positionals] : [...(config.inputs ?? [])];
  if (inputs.length === 0) {
    throw new GeneratorError('invalid_argument', `${NAME}: no contract files given`, {
      expected: 'gen-webhooks <file|dir>... (or a config file with `inputs`)',
    });
  }
  const runtimeFlag = stringFlag(args, 'runtime');
  if (runtimeFlag !== undefined && runtimeFlag !== 'package' && runtimeFlag !== 'inline') {
    throw new GeneratorError(
      'invalid_argument',
      `${NAME}: --runtime ${JSON.stringify(runtimeFlag)} is not a mode`,
      {
        expected: 'package or inline',
      },
    );
  }
  const runtime: RuntimeMode = (runtimeFlag as RuntimeMode | undefined) ?? config.runtime ?? 'package';
  const zodFlag = stringFlag(args, 'zod');
  if (zodFlag !== undefined && zodFlag !== 'classic' && zodFlag !== 'mini') {
    throw new GeneratorError(
      'invalid_argument',
      `${NAME}: --zod ${JSON.stringify(zodFlag)} is not a flavour`,
      {
        expected: 'classic or mini',
      },
    );
  }
  const zod = (zodFlag as ZodFlavor | undefined) ?? config.zod;
  const formFlag = stringFlag(args, 'data-modules');
  if (formFlag !== undefined && !['auto', 'js', 'ts'].includes(formFlag)) {
    throw new GeneratorError(
      'invalid_argument',
      `${NAME}: --data-modules ${JSON.stringify(formFlag)} is not a form`,
      { expected: 'auto, js or ts' },
    );
  }
  const dataModules = (formFlag as ModuleFormOption | undefined) ?? config.dataModules;
  const packageDir = stringFlag(args, 'package') ?? config.package?.dir;
  const previous = stringFlag(args, 'previous') ?? config.previous;
  if (previous !== undefined && packageDir === undefined) {
    throw new GeneratorError('invalid_argument', `${NAME}: --previous needs --package`, {
      expected: '--package <dir> --previous <old contract>',
    });
  }
  const { dir: _dir, ...packageInfo } = config.package ?? {};
  const check = booleanFlag(args, 'check');
  const watch = booleanFlag(args, 'watch');
  if (check && watch) {
    throw new GeneratorError('invalid_argument', `${NAME}: --check and --watch cannot be combined`);
  }
  const refRoot = stringFlag(args, 'ref-root') ?? config.refRoot;
  return {
    options: {
      inputs,
      out: stringFlag(args, 'out') ?? config.out ?? 'generated',
      runtime,
      check,
      allowRemoteRefs: booleanFlag(args, 'allow-remote-refs') || config.allowRemoteRefs === true,
      ...(refRoot !== undefined ? { refRoot } : {}),
      cwd,
      ...(zod === undefined ? {} : { zod }),
      ...(dataModules === undefined ? {} : { dataModules }),
      ...(packageDir === undefined ? {} : { package: packageDir, packageInfo }),
      ...(previous === undefined ? {} : { previous }),
      ...signatureOptions(args.values.signature, config),
      ...formatOption(stringFlag(args, 'format'), config),
    },
    check,
    watch,
    quiet: booleanFlag(args, 'quiet') || config.quiet === true,
    json: booleanFlag(args, 'json'),
  };
}

/** `--format` over the config's `format`. */
function formatOption(flag: string | undefined, config: GenerateConfig): { format?: FormatOption } {
  const format = flag === undefined ? config.format : parseFormat(flag);
  return format === undefined ? {} : { format };
}

/** `--signature [<contract>=]<scheme>` flags over the config's `signatures`. */
function signatureOptions(
  flags: unknown,
  config: GenerateConfig,
): { signatures?: { [contract: string]: SignatureConfig } } {
  const signatures: { [contract: string]: SignatureConfig } = {};
  for (const [contract, scheme] of Object.entries(config.signatures ?? {})) {
    signatures[contract] = typeof scheme === 'string' ? parseSignatureSpec(scheme) : scheme;
  }
  for (const flag of Array.isArray(flags) ? (flags as string[]) : []) {
    const named = /^([a-z0-9*][a-z0-9._-]*)=(.+)$/i.exec(flag);
    const [contract, scheme] = named ? [named[1] as string, named[2] as string] : ['*', flag];
    signatures[contract] = parseSignatureSpec(scheme, `${NAME}: --signature`);
  }
  return Object.keys(signatures).length > 0 ? { signatures } : {};
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function report(io: ToolIo, inv: Invocation, result: GenerateResult, ms: number): void {
  const style = createStyle(io.stdout, io.env);
  const changedFolders = new Set(result.changes.map((c) => c.folder));
  const warnings = result.diagnostics.filter((d) => d.level === 'warning');
  if (inv.json) {
    writeJson(io, {
      ok: !(inv.check && result.changed.length > 0),
      out: result.out,
      contracts: result.contracts.map((c) => ({
        name: c.name,
        file: c.file,
        format: c.format,
        events: c.events.length,
        files: c.files.length,
        changed: changedFolders.has(c.name),
        ...(c.package === undefined ? {} : { package: c.package }),
      })),
      files: result.files.length,
      changed: result.changed,
      diagnostics: result.diagnostics,
      moduleForm: result.moduleForm,
      ms: Math.round(ms),
    });
    return;
  }
  if (inv.quiet) {
    if (inv.check) for (const file of result.changed) io.stderr.write(`${file}\n`);
    return;
  }
  const width = Math.max(0, ...result.contracts.map((c) => c.name.length));
  for (const c of result.contracts) {
    const state = changedFolders.has(c.name)
      ? inv.check
        ? style.yellow('out of date')
        : 'written'
      : 'unchanged';
    io.stdout.write(
      `${changedFolders.has(c.name) && inv.check ? style.yellow('✗') : style.green('✓')} ${c.name.padEnd(width)}  ${plural(
        c.events.length,
        'event',
      )}  ${plural(c.files.length, 'file')}  ${style.dim(state)}${
        c.package === undefined
          ? ''
          : `  ${c.package.name}@${c.package.version}${c.package.bump === undefined ? '' : ` (${c.package.bump})`}`
      }\n`,
    );
  }
  if (warnings.length > 0) {
    io.stdout.write(style.yellow(`! ${plural(warnings.length, 'warning')}\n`));
    for (const d of warnings.slice(0, 5)) {
      const where = d.file ? `${d.file}${d.pointer !== undefined ? `#${d.pointer}` : ''}: ` : '';
      io.stdout.write(`  ${where}${d.message} [${d.code}]\n`);
    }
    if (warnings.length > 5)
      io.stdout.write(style.dim(`  … and ${warnings.length - 5} more (--json lists all)\n`));
  }
  if (result.moduleForm.form === 'ts') {
    // Worth a line: the form costs a consumer's tsc time, and --data-modules js takes it back.
    io.stdout.write(
      style.dim(`  schemas, validators and contract as .ts, not .js: ${result.moduleForm.reason}\n`),
    );
  }
  const events = result.contracts.reduce((n, c) => n + c.events.length, 0);
  const out = path.relative(inv.options.cwd ?? process.cwd(), result.out) || '.';
  if (inv.check) {
    if (result.changed.length === 0) {
      io.stdout.write(
        `${style.green('Up to date:')} ${plural(result.contracts.length, 'contract')} in ${out}/\n`,
      );
    } else {
      io.stdout.write(
        `${style.yellow('Out of date:')} ${plural(result.changed.length, 'file')} would change:\n`,
      );
      for (const d of result.changes) {
        for (const c of d.changes) io.stdout.write(`  ${c.change.padEnd(7)} ${out}/${c.path}\n`);
      }
    }
    return;
  }
  io.stdout.write(
    `Generated ${plural(result.contracts.length, 'contract')}, ${plural(events, 'event')}, ${plural(
      result.files.length,
      'file',
    )} in ${formatMs(ms)} → ${out}/ (${plural(result.changed.length, 'file')} changed)\n`,
  );
}

async function runOnce(io: ToolIo, inv: Invocation): Promise<{ code: number; result?: GenerateResult }> {
  const started = performance.now();
  const result = await generate(inv.options);
  report(io, inv, result, performance.now() - started);
  return { code: inv.check && result.changed.length > 0 ? 1 : 0, result };
}

function printError(io: ToolIo, inv: Invocation, error: GeneratorError): void {
  io.stderr.write(`gen-webhooks: ${error.format()}\n`);
  if (inv.json) writeJson(io, { ok: false, error: error.toJSON() });
}

/** Files a result depends on: each contract's root document and every document its schemas came from. */
function dependencies(result: GenerateResult | undefined, cwd: string): string[] {
  const files = new Set<string>();
  const add = (source: string | undefined) => {
    if (!source) return;
    const file = source.split('#')[0] ?? '';
    if (file && !/^[a-z][a-z0-9+.-]+:\/\//i.test(file)) files.add(path.resolve(cwd, file));
  };
  for (const c of result?.contracts ?? []) {
    add(c.model.file);
    for (const event of c.model.events) {
      add(event.source);
      add(event.payload.source);
    }
    for (const schema of Object.values(c.model.schemas)) add(schema.source);
  }
  return [...files];
}

export interface WatchControl {
  /** Stops watching (the command then returns 0). */
  readonly signal?: AbortSignal;
  /** Quiet period after the last change before regenerating. Default 100 ms. */
  readonly debounceMs?: number;
}

async function watchLoop(io: ToolIo, inv: Invocation, control: WatchControl): Promise<number> {
  const cwd = inv.options.cwd ?? process.cwd();
  const inputs = inv.options.inputs.filter((i) => !/^https?:\/\//i.test(i)).map((i) => path.resolve(cwd, i));
  let last: GenerateResult | undefined;
  const run = async () => {
    try {
      last = (await runOnce(io, inv)).result;
    } catch (error) {
      if (!(error instanceof GeneratorError)) throw error;
      printError(io, inv, error);
    }
  };
  await run();
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve();
  const wanted = () => new Set([...inputs, ...dependencies(last, cwd)]);
  const refresh = () => {
    // Watch directories, not files: editors replace files on save, which ends a file watch.
    const files = wanted();
    const dirs = new Set<string>();
    for (const file of files)
      dirs.add(inputs.includes(file) && isDirectory(file) ? file : path.dirname(file));
    for (const [dir, watcher] of watchers) {
      if (!dirs.has(dir)) {
        watcher.close();
        watchers.delete(dir);
      }
    }
    for (const dir of dirs) {
      if (watchers.has(dir)) continue;
      try {
        const watcher = watchFs(dir, (_event, name) => {
          const changed = name ? path.join(dir, name.toString()) : dir;
          if (inputs.includes(dir) || wanted().has(changed)) schedule();
        });
        watcher.on('error', () => {
          watchers.delete(dir);
        });
        watchers.set(dir, watcher);
      } catch {
        // A directory that does not exist (yet) is simply not watched.
      }
    }
  };
  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(async () => {
        if (!inv.quiet && !inv.json) io.stdout.write(`\nChange detected, regenerating…\n`);
        await run();
        refresh();
      });
    }, control.debounceMs ?? 100);
  };
  refresh();
  if (!inv.quiet && !inv.json) io.stdout.write('Watching for changes (Ctrl-C to stop)…\n');
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    if (control.signal) {
      if (control.signal.aborted) resolve();
      control.signal.addEventListener('abort', stop, { once: true });
    } else {
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    }
  });
  if (timer) clearTimeout(timer);
  for (const watcher of watchers.values()) watcher.close();
  await running;
  return 0;
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** Runs the command with injected streams (tests run it in-process). */
export async function runGenerate(
  argv: readonly string[],
  io: ToolIo = processIo(),
  control: WatchControl = {},
): Promise<number> {
  let inv: Invocation | undefined;
  try {
    inv = await resolveInvocation(argv, process.cwd());
    if (inv.watch) return await watchLoop(io, inv, control);
    return (await runOnce(io, inv)).code;
  } catch (error) {
    if (!(error instanceof GeneratorError)) throw error;
    io.stderr.write(`gen-webhooks: ${error.format()}\n`);
    if (inv?.json || argv.includes('--json')) writeJson(io, { ok: false, error: error.toJSON() });
    return 2;
  }
}

export const command: Command = {
  summary: 'Generate typed senders and receivers from contracts (the default command)',
  help,
  run: (argv) => runGenerate(argv),
};
