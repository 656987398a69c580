/**
 * CLI conventions (#17): bare `gen-webhooks` generates from gen-webhooks.config.*, a `.ts` config
 * loads through jiti, `--format`/`format` runs before `--check` compares, and a mistyped event name
 * gets the nearest names by edit distance.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runGenerate } from '../generator/commands/generate.js';
import { importTypeScript, loadConfig } from '../generator/config.js';
import type { ToolIo } from '../generator/tools/output.js';
import { nearest } from '../generator/tools/suggest.js';
import { repoRoot } from './types/typecheck.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-conventions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const petstore = path.join(repoRoot, 'schemas/petstore.openapi.yaml');

function io(): ToolIo & { err: () => string } {
  let err = '';
  return {
    stdout: { write: () => true },
    stderr: { write: (c: string) => (err += c) },
    env: {},
    err: () => err,
  };
}

describe('format before --check', () => {
  // A "formatter" anyone can read: it appends a marker line to every generated .ts file.
  const script = path.join(dir, 'mark.mjs');
  writeFileSync(
    script,
    `import { readdirSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import path from 'node:path';
const walk = (d) => readdirSync(d).flatMap((n) => statSync(path.join(d, n)).isDirectory() ? walk(path.join(d, n)) : [path.join(d, n)]);
for (const f of walk(process.argv[2])) if (f.endsWith('.ts')) writeFileSync(f, readFileSync(f, 'utf8') + '// formatted\\n');
`,
  );
  const command = `node ${JSON.stringify(script)} {dir}`;

  it('writes formatted files, and --check with the same formatter finds nothing changed', async () => {
    const out = path.join(dir, 'command');
    expect(await runGenerate([petstore, '--out', out, '--quiet', '--format', command], io())).toBe(0);
    expect(readFileSync(path.join(out, 'petstore-openapi/index.ts'), 'utf8')).toMatch(/\/\/ formatted\n$/);
    expect(await runGenerate([petstore, '--out', out, '--quiet', '--check', '--format', command], io())).toBe(
      0,
    );
    expect(await runGenerate([petstore, '--out', out, '--quiet', '--check'], io())).toBe(1);
  });

  it("biome: the project's biome formats the output", async () => {
    const raw = path.join(dir, 'raw');
    const formatted = path.join(dir, 'biome');
    expect(await runGenerate([petstore, '--out', raw, '--quiet'], io())).toBe(0);
    expect(await runGenerate([petstore, '--out', formatted, '--quiet', '--format', 'biome'], io())).toBe(0);
    const rel = 'petstore-openapi/schemas.js';
    expect(readFileSync(path.join(formatted, rel), 'utf8')).not.toBe(
      readFileSync(path.join(raw, rel), 'utf8'),
    );
    expect(
      await runGenerate([petstore, '--out', formatted, '--quiet', '--check', '--format', 'biome'], io()),
    ).toBe(0);
  }, 60_000);

  it('a formatter that is missing or fails is a format_failed error, and nothing is written', async () => {
    const out = path.join(dir, 'failing');
    const missing = io();
    expect(await runGenerate([petstore, '--out', out, '--format', 'prettier'], missing)).toBe(2);
    expect(missing.err()).toContain('prettier package is not installed');
    const failing = io();
    expect(
      await runGenerate([petstore, '--out', out, '--format', 'node -e "process.exit(3)"'], failing),
    ).toBe(2);
    expect(failing.err()).toContain('exited 3');
    expect(existsSync(out)).toBe(false);
  });
});

describe('config files', () => {
  it('loads a TypeScript config (types, satisfies, a local .ts import) through jiti', async () => {
    const project = path.join(dir, 'ts-config');
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(project, 'paths.ts'), `export const OUT: string = 'generated-from-ts';\n`);
    writeFileSync(
      path.join(project, 'gen-webhooks.config.ts'),
      `import { OUT } from './paths.ts';
interface Shape { inputs: string[]; out: string; format?: 'biome' }
const config = { inputs: [${JSON.stringify(petstore)}], out: OUT } satisfies Shape;
export default config;
`,
    );
    const mod = await importTypeScript(path.join(project, 'gen-webhooks.config.ts'));
    expect(mod.default).toEqual({ inputs: [petstore], out: 'generated-from-ts' });
    const config = await loadConfig(path.join(project, 'gen-webhooks.config.ts'));
    expect(config.out).toBe(path.join(project, 'generated-from-ts'));
  });

  it('bare `gen-webhooks` generates from gen-webhooks.config.* in the current directory', () => {
    const project = path.join(dir, 'bare');
    mkdirSync(project, { recursive: true });
    writeFileSync(
      path.join(project, 'gen-webhooks.config.json'),
      JSON.stringify({ inputs: [petstore], out: 'out', quiet: true }),
    );
    const run = spawnSync(
      process.execPath,
      [path.join(repoRoot, 'node_modules/tsx/dist/cli.mjs'), path.join(repoRoot, 'generator/cli.ts')],
      {
        cwd: project,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(existsSync(path.join(project, 'out/petstore-openapi/index.ts'))).toBe(true);
    const empty = spawnSync(
      process.execPath,
      [path.join(repoRoot, 'node_modules/tsx/dist/cli.mjs'), path.join(repoRoot, 'generator/cli.ts')],
      {
        cwd: dir,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(empty.status).toBe(2);
    expect(empty.stdout).toContain('Usage: gen-webhooks');
  }, 120_000);
});

describe('did you mean', () => {
  const events = [
    'order.completed',
    'order.created',
    'payment.failed',
    'payment.succeeded',
    'pet.adopted',
    'pet.status_changed',
  ];
  it.each([
    ['pet.adoptd', ['pet.adopted']],
    ['paymnet.failed', ['payment.failed']],
    ['order.create', ['order.created']],
    ['PET.ADOPTED', ['pet.adopted']],
    ['invoice.paid', []],
  ])('%s → %j', (name, expected) => {
    expect(nearest(name, events)).toEqual(expected);
  });
});
