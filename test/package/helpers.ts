/**
 * Helpers of the SDK package tests: a packed runtime built from this checkout's sources (into a temp
 * folder, never over runtime/dist that other tests read), `npm pack`, an offline install into an
 * empty project, and a type-check of that project with the TypeScript API.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../types/typecheck.js';

const require = createRequire(import.meta.url);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(command: string, args: readonly string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `npm pack` of `dir` into `dest`; returns the tarball's path. */
export function npmPack(dir: string, dest: string): string {
  mkdirSync(dest, { recursive: true });
  const before = new Set(readdirSync(dest));
  run(NPM, ['pack', dir, '--ignore-scripts', '--silent', '--pack-destination', dest], dest);
  const created = readdirSync(dest).filter((f) => f.endsWith('.tgz') && !before.has(f));
  if (created.length !== 1) throw new Error(`npm pack ${dir} made ${created.length} tarballs`);
  return path.join(dest, created[0] as string);
}

/** @gen-webhooks/runtime as a package folder (package.json + dist/ compiled from runtime/). */
export function buildRuntimePackage(dest: string): string {
  const tsc = require.resolve('typescript/bin/tsc');
  mkdirSync(dest, { recursive: true });
  copyFileSync(path.join(repoRoot, 'runtime/package.json'), path.join(dest, 'package.json'));
  run(
    process.execPath,
    [tsc, '-p', path.join(repoRoot, 'runtime/tsconfig.build.json'), '--outDir', path.join(dest, 'dist')],
    repoRoot,
  );
  return dest;
}

function sourcesDigest(dir: string, hash = createHash('sha256')): ReturnType<typeof createHash> {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'dist' && entry.name !== 'node_modules') sourcesDigest(file, hash);
    } else if (/\.(ts|json)$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name)) {
      hash.update(path.relative(repoRoot, file)).update(readFileSync(file));
    }
  }
  return hash;
}

/**
 * The runtime package built from the current sources, cached in the OS temp dir by a digest of
 * them (a build is ~20 s of tsc): built in a private folder, then renamed into place, so test files
 * running at the same time never see a half-built one.
 */
export function runtimePackage(): string {
  const digest = sourcesDigest(path.join(repoRoot, 'runtime')).digest('hex').slice(0, 16);
  const cached = path.join(os.tmpdir(), `gw-runtime-package-${digest}`);
  if (existsSync(path.join(cached, 'dist/index.d.ts'))) return cached;
  const building = mkdtempSync(path.join(os.tmpdir(), 'gw-runtime-build-'));
  buildRuntimePackage(building);
  try {
    renameSync(building, cached);
  } catch {
    // Another test file finished the same build first.
    rmSync(building, { recursive: true, force: true });
  }
  return cached;
}

/** A folder whose node_modules has the runtime package and zod (what `--package` builds against). */
export function linkDependencies(dir: string, runtimeDir: string): void {
  mkdirSync(path.join(dir, 'node_modules/@gen-webhooks'), { recursive: true });
  symlinkSync(runtimeDir, path.join(dir, 'node_modules/@gen-webhooks/runtime'), 'dir');
  symlinkSync(path.join(repoRoot, 'node_modules/zod'), path.join(dir, 'node_modules/zod'), 'dir');
}

/**
 * An empty project with the tarballs installed by npm, offline. zod comes as a tarball packed from
 * this checkout's node_modules (the same 4.x the tests use), so no registry is needed.
 */
export function installProject(dir: string, tarballs: readonly string[]): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'package.json'),
    '{ "name": "consumer", "private": true, "type": "module" }\n',
  );
  const zod = npmPack(path.join(repoRoot, 'node_modules/zod'), path.join(dir, '..', 'zod-tarball'));
  run(NPM, ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballs, zod], dir);
}

/** The strict consumer flags of issue #14 (plus NodeNext and no ambient @types). */
export const STRICT: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noPropertyAccessFromIndexSignature: true,
  verbatimModuleSyntax: true,
  erasableSyntaxOnly: true,
  types: [],
  noEmit: true,
};

/** Type-checks `files` (names inside `dir`) under `options`; returns formatted diagnostics. */
export function typecheckProject(
  dir: string,
  files: readonly string[],
  options: ts.CompilerOptions,
): string[] {
  const program = ts.createProgram({ rootNames: files.map((f) => path.join(dir, f)), options });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file
      ? `${path.relative(dir, d.file.fileName)}(${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1})`
      : '';
    return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}

/** The `n`-th ```ts block of a Markdown text. */
export function tsBlock(markdown: string, n: number): string {
  const blocks = [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
  const block = blocks[n];
  if (block === undefined) throw new Error(`no ts block #${n}`);
  return block;
}

/** Runs `node --test` on a file; returns its exit code and output. */
export function nodeTest(file: string, cwd: string): { code: number; output: string } {
  try {
    return { code: 0, output: run(process.execPath, ['--test', file], cwd) };
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string };
    return { code: e.status ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** Runs a devDependency's CLI (publint, attw) from this checkout. */
export function cli(bin: string, args: readonly string[], cwd: string): { code: number; output: string } {
  const binPath = path.join(repoRoot, 'node_modules/.bin', bin);
  try {
    return { code: 0, output: run(binPath, args, cwd) };
  } catch (error) {
    const e = error as { status?: number; stdout?: string; stderr?: string };
    return { code: e.status ?? 1, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}
