/**
 * Bundle size of a whole Petstore receiver with its validators, classic zod vs `--zod mini`: the
 * generated module (every event handled) bundled with esbuild as a Web/Workers app would be —
 * ESM, minified, tree-shaken, `browser`/`worker` conditions, `node:*` left to the platform — then
 * gzipped. The runtime resolves through its package.json `exports` (so its export conditions count)
 * onto its sources. Also the handler-less `createParser` form. Bytes per origin from esbuild's
 * metafile: zod, the runtime, the generated module.
 * Target (#14): the receiver with zod/mini ≤ 30 KB gzipped.
 * Run: npx tsx bench/sdk-size.bench.ts
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile, type Plugin } from 'esbuild';
import { generate } from '../generator/generate.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Outside the repo (its tsconfig would check the entries); zod resolves from the repo's node_modules.
const work = mkdtempSync(path.join(os.tmpdir(), 'gw-sdk-size-'));
const TARGET_KB = 30;
const CONDITIONS = ['workerd', 'worker', 'browser'];

type Exports = string | { readonly [condition: string]: Exports } | null;

/** `exports` target for the conditions, like a bundler picks it. */
function pick(target: Exports, conditions: readonly string[]): string | undefined {
  if (target === null) return undefined;
  if (typeof target === 'string') return target;
  for (const [condition, value] of Object.entries(target)) {
    if (condition === 'types') continue;
    if (condition === 'default' || condition === 'import' || conditions.includes(condition)) {
      const found = pick(value, conditions);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** `@gen-webhooks/runtime[/sub]` → the source file its `exports` entry for these conditions is built from. */
function runtimeSources(conditions: readonly string[]): Plugin {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'runtime/package.json'), 'utf8')) as {
    exports: Record<string, Exports>;
  };
  return {
    name: 'runtime-sources',
    setup(b) {
      b.onResolve({ filter: /^@gen-webhooks\/runtime(\/.*)?$/ }, (args) => {
        const sub = `.${args.path.slice('@gen-webhooks/runtime'.length)}`;
        const target = pick(pkg.exports[sub] ?? null, conditions);
        if (target === undefined)
          return { errors: [{ text: `runtime exports no ${sub} for ${conditions}` }] };
        const source = target.replace(/^\.\/dist\//, './').replace(/\.js$/, '.ts');
        return { path: path.join(repoRoot, 'runtime', source) };
      });
    },
  };
}

const ENTRIES = {
  receiver: (events: readonly string[]) =>
    [
      "import { createReceiver } from './module/index.js';",
      'const handlers = {',
      ...events.map((e) => `  ${JSON.stringify(e)}: (event) => console.log(event.id, event.data),`),
      '};',
      "const receiver = createReceiver({ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', dedupe: false, handlers });",
      'export default { fetch: (request) => receiver.fetch(request) };',
    ].join('\n'),
  parser: () =>
    [
      "import { createParser } from './module/index.js';",
      "const parser = createParser({ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });",
      'export default {',
      '  async fetch(request) {',
      '    const event = await parser.verifyAndParse(request);',
      '    return new Response(event.type);',
      '  },',
      '};',
    ].join('\n'),
} as const;

function origin(file: string): string {
  if (file.includes('node_modules/zod/')) return 'zod';
  if (file.startsWith('runtime/') || file.includes('/runtime/')) return 'runtime';
  return 'generated';
}

/** Minified output bytes per origin (esbuild's per-input attribution of the output). */
function byOrigin(metafile: Metafile): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const key = origin(input);
      totals[key] = (totals[key] ?? 0) + bytesInOutput;
    }
  }
  return totals;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1).padStart(6)} KB`;

const results: Record<string, number> = {};
console.log(
  `Petstore receiver bundles: esbuild, ESM, minified, conditions ${CONDITIONS.join('/')}, gzip -9\n`,
);
for (const zod of ['classic', 'mini'] as const) {
  const dir = path.join(work, zod);
  const generated = await generate({
    inputs: ['schemas/petstore.openapi.yaml'],
    cwd: repoRoot,
    out: dir,
    zod,
  });
  // generate() writes <out>/<contract>/; the entries import ./module/.
  const contract = generated.contracts[0];
  if (!contract) throw new Error('no contract generated');
  const events = contract.events;
  mkdirSync(dir, { recursive: true });
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const file = path.join(dir, `${name}.entry.ts`);
    writeFileSync(file, entry(events).replaceAll('./module/', `./${contract.name}/`));
    const out = await build({
      entryPoints: [file],
      bundle: true,
      minify: true,
      format: 'esm',
      platform: 'browser',
      conditions: CONDITIONS,
      // Drivers are the app's (and Node-only); the runtime loads them lazily, never on this path.
      external: ['node:*', 'better-sqlite3', 'pg', 'ioredis'],
      write: false,
      metafile: true,
      legalComments: 'none',
      plugins: [runtimeSources(CONDITIONS)],
      absWorkingDir: repoRoot,
      nodePaths: [path.join(repoRoot, 'node_modules')],
      logLevel: 'error',
    });
    const bytes = out.outputFiles[0]?.contents ?? new Uint8Array();
    const gzipped = gzipSync(bytes, { level: 9 }).length;
    results[`${name}/${zod}`] = gzipped;
    const parts = byOrigin(out.metafile);
    const split = ['zod', 'runtime', 'generated'].map((k) => `${k} ${kb(parts[k] ?? 0)}`).join(', ');
    console.log(
      `  ${`${name} (${zod} zod)`.padEnd(22)} ${kb(bytes.length)} minified  ${kb(gzipped)} gzipped   (minified: ${split})`,
    );
  }
}
const mini = results['receiver/mini'] ?? 0;
const classic = results['receiver/classic'] ?? 0;
console.log(
  `\nreceiver with zod/mini: ${kb(mini).trim()} gzipped, ${(mini / classic).toFixed(2)}× classic; target ≤ ${TARGET_KB} KB: ${
    mini <= TARGET_KB * 1024 ? 'meets' : 'MISSES'
  }`,
);
rmSync(work, { recursive: true, force: true });
