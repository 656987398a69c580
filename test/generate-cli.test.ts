/**
 * The `gen-webhooks` command end to end: progress and summary lines, exit codes (0 ok, 1 check
 * failed, 2 bad input/usage), atomic writes (a failing run leaves the previous output byte-identical),
 * --check, --json, --config, --quiet and --watch (a real child process and a real file change).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../generator/cli.js';
import { help, runGenerate } from '../generator/commands/generate.js';
import type { ToolIo } from '../generator/tools/output.js';
import { repoRoot } from './types/typecheck.js';

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'cli-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

function io(): ToolIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (chunk: string) => (out += chunk) },
    stderr: { write: (chunk: string) => (err += chunk) },
    env: {},
    out: () => out,
    err: () => err,
  };
}

function snapshot(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (d: string, prefix: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path.join(d, entry.name), rel);
      else files[rel] = readFileSync(path.join(d, entry.name), 'utf8');
    }
  };
  if (existsSync(folder)) walk(folder, '');
  return files;
}

const petstore = path.join(repoRoot, 'schemas/petstore.openapi.yaml');

const minimal = (events: string) => `openapi: 3.1.0
info: { title: Mini, version: 1.0.0 }
webhooks:
${events}`;
const event = (name: string, extra = '') => `  ${name}:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [id]
              properties:
                id: { type: string }${extra}
      responses: { '200': { description: ok } }
`;

describe('gen-webhooks generate', () => {
  const out = path.join(dir, 'out');

  it('documents every flag and the exit codes in --help', async () => {
    for (const flag of [
      '--out',
      '--runtime',
      '--check',
      '--watch',
      '--config',
      '--allow-remote-refs',
      '--quiet',
      '--json',
    ]) {
      expect(help).toContain(flag);
    }
    expect(help).toMatch(/0\s+success/);
    expect(help).toMatch(/1\s+--check/);
    expect(help).toMatch(/2\s+bad input/);
    expect(help).toContain('.js/.mjs/.json');
  });

  it('prints a line per contract and a summary, then reports no change on a second run', async () => {
    const first = io();
    expect(
      await runGenerate(
        [petstore, path.join(repoRoot, 'schemas/petstore.asyncapi.yaml'), '--out', out],
        first,
      ),
    ).toBe(0);
    expect(first.out()).toMatch(/✓ petstore-openapi\s+6 events\s+11 files\s+written/);
    expect(first.out()).toMatch(/✓ petstore-asyncapi\s+6 events\s+11 files/);
    expect(first.out()).toMatch(/Generated 2 contracts, 12 events, 22 files in \S+ → .*\(22 files changed\)/);
    expect(first.err()).toBe('');
    const second = io();
    expect(await runGenerate([petstore, '--out', out], second)).toBe(0);
    expect(second.out()).toMatch(/petstore-openapi\s+6 events\s+11 files\s+unchanged/);
    expect(second.out()).toContain('(0 files changed)');
  });

  it('--check exits 0 when up to date, 1 with the files when not, and writes nothing', async () => {
    const ok = io();
    expect(await runGenerate([petstore, '--out', out, '--check'], ok)).toBe(0);
    expect(ok.out()).toContain('Up to date');
    const types = path.join(out, 'petstore-openapi/types.ts');
    writeFileSync(types, `${readFileSync(types, 'utf8')}// edited\n`);
    writeFileSync(path.join(out, 'petstore-openapi/stray.ts'), 'export {};\n');
    const stale = io();
    expect(await runGenerate([petstore, '--out', out, '--check'], stale)).toBe(1);
    expect(stale.out()).toMatch(/changed\s+\S*petstore-openapi\/types\.ts/);
    expect(stale.out()).toMatch(/removed\s+\S*petstore-openapi\/stray\.ts/);
    expect(readFileSync(types, 'utf8')).toContain('// edited');
    // A normal run repairs it: the folder is replaced as a whole.
    expect(await runGenerate([petstore, '--out', out, '--quiet'], io())).toBe(0);
    expect(readFileSync(types, 'utf8')).not.toContain('// edited');
    expect(existsSync(path.join(out, 'petstore-openapi/stray.ts'))).toBe(false);
  });

  const bad: Record<string, { files: Record<string, string>; code: string }> = {
    'invalid YAML': { files: { 'bad.yaml': 'openapi: 3.1.0\ninfo: [unclosed\n' }, code: 'invalid_yaml' },
    'a missing $ref target': {
      files: {
        'bad.yaml': minimal(
          event('a.b').replace('id: { type: string }', "id: { $ref: 'shared.yaml#/Missing' }"),
        ),
        'shared.yaml': 'Other: { type: string }\n',
      },
      code: 'ref_not_found',
    },
    'an unknown version': {
      files: { 'bad.yaml': 'openapi: 2.5.0\ninfo: { title: Old, version: 1.0.0 }\npaths: {}\n' },
      code: 'unsupported_version',
    },
    'no events': {
      files: {
        'bad.yaml':
          "openapi: 3.1.0\ninfo: { title: None, version: 1.0.0 }\npaths:\n  /x:\n    get:\n      responses: { '200': { description: ok } }\n",
      },
      code: 'no_events',
    },
  };
  for (const [name, spec] of Object.entries(bad)) {
    it(`exits 2 on ${name} with one error line and leaves the previous output byte-identical`, async () => {
      const specDir = mkdtempSync(path.join(dir, 'bad-'));
      for (const [file, text] of Object.entries(spec.files)) writeFileSync(path.join(specDir, file), text);
      const before = snapshot(out);
      expect(Object.keys(before).length).toBeGreaterThan(0);
      const run = io();
      // The good contract comes first: a failure in any input must still write nothing.
      expect(await runGenerate([petstore, path.join(specDir, 'bad.yaml'), '--out', out], run)).toBe(2);
      const lines = run.err().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^gen-webhooks: .*bad\\.yaml.*\\[${spec.code}\\]$`));
      expect(snapshot(out)).toEqual(before);
      expect(readdirSync(out).filter((e) => e.startsWith('.'))).toEqual([]);
    });
  }

  it('exits 2 on usage errors', async () => {
    for (const argv of [
      [petstore, '--bogus'],
      [petstore, '--runtime', 'vendored'],
      [petstore, '--data-modules', 'mjs'],
      [],
      [petstore, '--check', '--watch'],
    ]) {
      const run = io();
      expect(await runGenerate(argv, run), argv.join(' ')).toBe(2);
      expect(run.err()).toMatch(/\[invalid_argument\]\n$/);
    }
    expect(await main(['generate', '--help'])).toBe(0);
  });

  it('--data-modules: .ts where the tsconfig above --out emits with tsc, .js elsewhere, or as asked', async () => {
    const project = mkdtempSync(path.join(dir, 'tsc-'));
    writeFileSync(path.join(project, 'tsconfig.json'), '{ "compilerOptions": { "outDir": "dist" } }');
    const files = (folder: string) =>
      readdirSync(path.join(folder, 'petstore-openapi')).filter((f) => f.startsWith('validators'));
    const auto = io();
    expect(await runGenerate([petstore, '--out', path.join(project, 'src/gen')], auto)).toBe(0);
    expect(files(path.join(project, 'src/gen'))).toEqual(['validators.ts']);
    expect(auto.out()).toMatch(
      /schemas, validators and contract as \.ts, not \.js: .*tsconfig\.json emits JavaScript with tsc/,
    );
    // Asked for js, the .ts file goes and the pair comes back (the folder is swapped whole).
    const js = io();
    expect(
      await runGenerate([petstore, '--out', path.join(project, 'src/gen'), '--data-modules', 'js'], js),
    ).toBe(0);
    expect(files(path.join(project, 'src/gen')).sort()).toEqual(['validators.d.ts', 'validators.js']);
    expect(js.out()).not.toContain('validators.ts');
    // The repository's own tsconfig.json does not emit (noEmit): .js under test/.tmp.
    expect(files(out).sort()).toEqual(['validators.d.ts', 'validators.js']);
    writeFileSync(path.join(project, 'bad.json'), JSON.stringify({ inputs: [petstore], dataModules: 'cjs' }));
    const invalid = io();
    expect(await runGenerate(['--config', path.join(project, 'bad.json')], invalid)).toBe(2);
    expect(invalid.err()).toMatch(/invalid dataModules form 'cjs'.*'auto', 'js' or 'ts'.*\[invalid_config\]/);
  });

  it('--json prints one result object', async () => {
    const run = io();
    expect(await runGenerate([petstore, '--out', out, '--json'], run)).toBe(0);
    const result = JSON.parse(run.out()) as {
      ok: boolean;
      contracts: { name: string; events: number; files: number }[];
    };
    expect(result.ok).toBe(true);
    expect(result.contracts).toEqual([
      expect.objectContaining({ name: 'petstore-openapi', events: 6, files: 11 }),
    ]);
    const failed = io();
    expect(await runGenerate([path.join(dir, 'nope.yaml'), '--out', out, '--json'], failed)).toBe(2);
    expect(JSON.parse(failed.out())).toMatchObject({ ok: false, error: { code: 'file_not_found' } });
  });

  it('prints unsupported-keyword warnings unless --quiet', async () => {
    const specDir = mkdtempSync(path.join(dir, 'warn-'));
    const file = path.join(specDir, 'warn.yaml');
    writeFileSync(file, minimal(event('a.b', '\n                code: { type: string, not: { const: x } }')));
    const loud = io();
    expect(await runGenerate([file, '--out', path.join(specDir, 'out')], loud)).toBe(0);
    expect(loud.out()).toMatch(/! \d+ warnings?\n.*not.*\[unsupported_keyword\]/);
    const quiet = io();
    expect(await runGenerate([file, '--out', path.join(specDir, 'out'), '--quiet'], quiet)).toBe(0);
    expect(quiet.out()).toBe('');
  });

  it('--config loads .json and .mjs configs with paths relative to the config file', async () => {
    const cfgDir = mkdtempSync(path.join(dir, 'config-'));
    copyFileSync(petstore, path.join(cfgDir, 'petstore.openapi.yaml'));
    writeFileSync(
      path.join(cfgDir, 'a.json'),
      JSON.stringify({ inputs: ['petstore.openapi.yaml'], out: 'json-out' }),
    );
    writeFileSync(
      path.join(cfgDir, 'b.mjs'),
      "export default { inputs: ['petstore.openapi.yaml'], out: 'mjs-out', runtime: 'inline', quiet: true };\n",
    );
    expect(await runGenerate(['--config', path.join(cfgDir, 'a.json')], io())).toBe(0);
    expect(existsSync(path.join(cfgDir, 'json-out/petstore-openapi/index.ts'))).toBe(true);
    const run = io();
    expect(await runGenerate(['--config', path.join(cfgDir, 'b.mjs')], run)).toBe(0);
    expect(run.out()).toBe('');
    expect(existsSync(path.join(cfgDir, 'mjs-out/petstore-openapi/runtime/index.ts'))).toBe(true);
    expect(readFileSync(path.join(cfgDir, 'mjs-out/petstore-openapi/runtime/index.ts'), 'utf8')).toMatch(
      /^\/\/ Generated by gen-webhooks \S+ from @gen-webhooks\/runtime\/inline\.ts\. Do not edit\.\n/,
    );
    // A TypeScript config loads where TypeScript can be imported (tsx, vitest).
    writeFileSync(
      path.join(cfgDir, 'gen-webhooks.config.ts'),
      "import type { GenerateConfig } from '../../../../generator/config.js';\n" +
        "const config: GenerateConfig = { inputs: ['petstore.openapi.yaml'], out: 'ts-out' };\nexport default config;\n",
    );
    expect(await runGenerate(['--config', path.join(cfgDir, 'gen-webhooks.config.ts')], io())).toBe(0);
    expect(existsSync(path.join(cfgDir, 'ts-out/petstore-openapi/index.ts'))).toBe(true);
    writeFileSync(path.join(cfgDir, 'c.json'), JSON.stringify({ inputs: ['x.yaml'], target: 'es5' }));
    const invalid = io();
    expect(await runGenerate(['--config', path.join(cfgDir, 'c.json')], invalid)).toBe(2);
    expect(invalid.err()).toMatch(/unknown config option 'target'.*\[invalid_config\]/);
  });
});

describe('gen-webhooks --watch', () => {
  let specDir: string;
  beforeAll(() => {
    specDir = mkdtempSync(path.join(dir, 'watch-'));
  });

  it('regenerates when the input or a file it $refs changes, and keeps running through errors', async () => {
    const file = path.join(specDir, 'live.yaml');
    const shared = path.join(specDir, 'shared.yaml');
    writeFileSync(shared, 'Extra: { type: string }\n');
    writeFileSync(
      file,
      minimal(event('first.event', "\n                extra: { $ref: 'shared.yaml#/Extra' }")),
    );
    const out = path.join(specDir, 'out');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'generator/cli.ts', file, '--out', out, '--watch'],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const types = path.join(out, 'live/types.ts');
    const waitFor = async (what: string, test: () => boolean) => {
      // Bounded wait: fs events and a tsx start-up are not instant on a busy machine.
      for (let i = 0; i < 300 && !test(); i++) await new Promise((r) => setTimeout(r, 100));
      expect(test(), `${what}\nstdout: ${stdout}\nstderr: ${stderr}`).toBe(true);
    };
    await waitFor('initial generation', () => stdout.includes('Watching for changes'));
    expect(readFileSync(types, 'utf8')).toContain("'first.event'");

    writeFileSync(file, minimal(event('first.event') + event('second.event')));
    await waitFor('regeneration after the input changed', () =>
      readFileSync(types, 'utf8').includes("'second.event'"),
    );

    writeFileSync(
      file,
      minimal(event('first.event', "\n                extra: { $ref: 'shared.yaml#/Extra' }")),
    );
    await waitFor('back to one event', () => !readFileSync(types, 'utf8').includes("'second.event'"));
    writeFileSync(shared, 'Extra: { type: integer }\n');
    await waitFor('regeneration after a $ref target changed', () =>
      /export type Extra = number;/.test(readFileSync(types, 'utf8')),
    );

    const before = readFileSync(types, 'utf8');
    writeFileSync(file, 'openapi: 3.1.0\ninfo: [broken\n');
    await waitFor('the error is printed', () => stderr.includes('[invalid_yaml]'));
    expect(readFileSync(types, 'utf8')).toBe(before);
    expect(child.exitCode).toBeNull();

    writeFileSync(file, minimal(event('third.event')));
    await waitFor(
      'recovery after the error',
      () => existsSync(types) && readFileSync(types, 'utf8').includes("'third.event'"),
    );
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }, 120_000);
});
