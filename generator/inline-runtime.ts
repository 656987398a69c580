/**
 * `--runtime inline`: the runtime files a generated module needs, copied into its folder. The walk
 * starts at the runtime's `inline.ts` (what generated files import; written as `runtime/index.ts`) and
 * follows every relative import, type-only ones included (the copy must type-check on its own), so the
 * stores, outboxes, adapters and management code a generated module never imports stay out.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { headerLine } from './emit/header.js';
import { GeneratorError } from './errors.js';

const ENTRY = 'inline.ts';
// Runtime sources are formatted by the project's formatter: every import/export clause starts a line.
const STATIC_IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*'([^']+)'\s*\)/g;

/**
 * Where the runtime sources are: the installed `@gen-webhooks/runtime` package (it ships its `.ts`
 * sources for this), or `runtime/` beside `generator/` in a checkout.
 */
function runtimeSourceDir(): string {
  const candidates: string[] = [];
  try {
    const req = createRequire(import.meta.url);
    candidates.push(path.dirname(req.resolve('@gen-webhooks/runtime/package.json')));
  } catch {
    // Not resolvable as a package (unusual layout): fall back to the checkout's folder.
  }
  const here = path.dirname(fileURLToPath(import.meta.url));
  candidates.push(path.join(here, '..', 'runtime'), path.join(here, '..', '..', 'runtime'));
  for (const candidate of candidates) {
    if (existsSync(path.join(candidate, ENTRY))) return candidate;
  }
  throw new GeneratorError(
    'invalid_argument',
    '--runtime inline needs the runtime sources (@gen-webhooks/runtime ships them)',
    {
      expected: 'an installed @gen-webhooks/runtime that includes its *.ts sources, or --runtime package',
    },
  );
}

/** The runtime files `file` imports (relative specifiers only), as paths inside the runtime folder. */
function relativeImports(file: string, text: string): string[] {
  const found: string[] = [];
  for (const pattern of [STATIC_IMPORT, DYNAMIC_IMPORT]) {
    for (const match of text.matchAll(pattern)) {
      const spec = match[1] ?? '';
      if (!spec.startsWith('.')) continue;
      found.push(
        path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts'),
      );
    }
  }
  return found;
}

let cached: { readonly version: string; readonly files: ReadonlyMap<string, string> } | undefined;

/** The runtime files of an inline copy, keyed by path inside `runtime/`, each with a header. */
export function inlineRuntimeFiles(version: string): ReadonlyMap<string, string> {
  if (cached?.version === version) return cached.files;
  const dir = runtimeSourceDir();
  const sources = new Map<string, string>();
  const queue = [ENTRY];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (sources.has(file)) continue;
    const full = path.join(dir, file);
    if (!existsSync(full)) {
      throw new GeneratorError('invalid_argument', `the runtime sources lack ${file}`, {
        file: full,
        expected: 'a complete @gen-webhooks/runtime (its *.ts sources)',
      });
    }
    const text = readFileSync(full, 'utf8');
    sources.set(file, text);
    queue.push(...relativeImports(file, text));
  }
  const files = new Map<string, string>();
  for (const file of [...sources.keys()].sort()) {
    const header = headerLine(version, `@gen-webhooks/runtime/${file}`);
    files.set(file === ENTRY ? 'index.ts' : file, header + (sources.get(file) as string));
  }
  cached = { version, files };
  return files;
}
