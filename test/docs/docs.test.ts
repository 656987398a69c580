/**
 * Every ```ts block of README.md and docs/*.md, checked the way a reader would use it: after the
 * README's quick start (`gen-webhooks schemas/ --out generated`), in the repository root. The
 * Petstore SDK is generated from schemas/ into a temp folder's `generated/` (the blocks import
 * `./generated/petstore-openapi/…`); all blocks are type-checked as one tsc program (strict,
 * NodeNext, `@gen-webhooks/runtime` → runtime sources) and each runs in its own
 * `node --import tsx` process (test/docs/run-block.ts), in a working directory of its own (the
 * `webhooks.db` of one example is not another's), two at a time. A block that reads DATABASE_URL
 * gets a PostgreSQL database of its own; blocks that read REDIS_URL share the server, so they run
 * one at a time (skipped locally without them, never under CI=true). A block whose first line names
 * a file (`// webhooks.ts — …`) is written under that name, as the module other blocks import. The
 * examples see PORT=0 and the secrets in EXAMPLE_ENV, as a reader's shell would have them.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../generator/config.js';
import { generate } from '../../generator/index.js';
import { missingEnv } from '../support/requires.js';
import { repoRoot } from '../types/typecheck.js';
import { type DocBlock, extractBlocks } from './blocks.js';
import { limit } from './limit.js';

const run = promisify(execFile);

/** What the examples read from the environment besides the database URLs. */
const EXAMPLE_ENV: Readonly<Record<string, string>> = {
  PORT: '0',
  PETSTORE_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  STRIPE_WEBHOOK_SECRET: 'whsec_test_stripe_secret',
  // A real random key: the outbox refuses repeated-byte placeholders.
  WEBHOOK_KEY_2026_06: randomBytes(32).toString('base64'),
};

/** Guides whose examples the prose counts on (one per preset, the SDK's two, …): at least this many. */
const AT_LEAST: Readonly<Record<string, number>> = {
  'README.md': 4,
  'docs/presets.md': 9,
  'docs/portal.md': 1,
  'docs/receiver.md': 15,
  'docs/runtime-signing.md': 6,
  'docs/sdk.md': 2,
  'docs/sender.md': 12,
};

/** Two examples at a time, each its own process; the type-check takes a slot too. */
const slot = limit(2);
/** Redis is one server for all: its examples do not overlap. */
const redisTurn = limit(1);

const docs = [
  'README.md',
  ...readdirSync(path.join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const blocks = docs.flatMap((doc) => extractBlocks(doc, readFileSync(path.join(repoRoot, doc), 'utf8')));

mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
const dir = mkdtempSync(path.join(repoRoot, 'test/.tmp/docs-'));
const fileOf = (block: DocBlock) =>
  path.join(dir, block.file ?? `${block.doc.replace(/[/.]/g, '-')}-L${block.line}.ts`);
const label = (block: DocBlock) => `${block.doc}:${block.line}`;
const needs = (block: DocBlock, name: string) => block.code.includes(`process.env.${name}`);
const admin = process.env.DATABASE_URL;

beforeAll(async () => {
  await generate({ inputs: [path.join(repoRoot, 'schemas')], out: path.join(dir, 'generated') });
  for (const block of blocks) writeFileSync(fileOf(block), `${block.code}\nexport {};\n`);
  // tsx reads `paths` from here, so the examples run against the runtime sources, as tsc checks them.
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        baseUrl: repoRoot,
        paths: {
          '@gen-webhooks/runtime': ['./runtime/index.ts'],
          '@gen-webhooks/runtime/generated': ['./runtime/generated.ts'],
          'gen-webhooks': ['./generator/index.ts'],
        },
      },
    }),
  );
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `file(line,col): message` → `doc:line message`, the line counted in the Markdown file. */
function locate(diagnostic: string): string {
  for (const block of blocks) {
    const file = path.relative(repoRoot, fileOf(block));
    if (!diagnostic.startsWith(`${file}(`)) continue;
    const match = /^[^(]+\((\d+),(\d+)\): (.*)$/s.exec(diagnostic);
    if (match) return `${block.doc}:${block.line + Number(match[1]) - 1}:${match[2]} ${match[3]}`;
  }
  return diagnostic;
}

/** A PostgreSQL database for one example, dropped (with its connections) after it. */
async function withDatabase<T>(use: (url: string) => Promise<T>): Promise<T> {
  const name = `docs_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const query = async (sql: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await query(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(admin as string);
    url.pathname = `/${name}`;
    return await use(url.toString());
  } finally {
    await query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

async function runBlock(block: DocBlock, databaseUrl: string | undefined): Promise<void> {
  const cwd = mkdtempSync(path.join(dir, 'cwd-'));
  const env: Record<string, string | undefined> = {
    ...process.env,
    ...EXAMPLE_ENV,
    TSX_TSCONFIG_PATH: path.join(dir, 'tsconfig.json'),
    ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
  };
  try {
    await run(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'test/docs/run-block.ts'), fileOf(block)],
      { cwd, env, timeout: 60_000 },
    );
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${label(block)} failed:\n${stderr ?? ''}${stdout ?? ''}`);
  }
}

describe('documentation examples (README.md, docs/*.md)', () => {
  it('finds the blocks of every guide, each module name once', () => {
    for (const [doc, count] of Object.entries(AT_LEAST)) {
      expect(blocks.filter((b) => b.doc === doc).length, doc).toBeGreaterThanOrEqual(count);
    }
    const named = blocks.flatMap((b) => (b.file === undefined ? [] : [b.file]));
    expect(named.length, named.join(', ')).toBe(new Set(named).size);
  });

  it.concurrent(
    'type-check as one program against the runtime and the generated Petstore SDK',
    () =>
      slot(async () => {
        const { stdout } = await run(
          process.execPath,
          ['--import', 'tsx', path.join(repoRoot, 'test/docs/typecheck-blocks.ts'), ...blocks.map(fileOf)],
          { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
        );
        expect((JSON.parse(stdout) as string[]).map(locate)).toEqual([]);
      }),
    600_000,
  );

  it.concurrent.each(blocks.map((block) => [label(block), block] as const))(
    '%s runs',
    async (_, block) => {
      if (needs(block, 'DATABASE_URL') && missingEnv('DATABASE_URL', `the example at ${label(block)}`))
        return;
      const redis = needs(block, 'REDIS_URL');
      if (redis && missingEnv('REDIS_URL', `the example at ${label(block)}`)) return;
      const go = () =>
        slot(() =>
          needs(block, 'DATABASE_URL')
            ? withDatabase((url) => runBlock(block, url))
            : runBlock(block, undefined),
        );
      await (redis ? redisTurn(go) : go());
    },
    600_000,
  );

  it.concurrent.each(
    blocks.filter((b) => b.code.includes('defineConfig(')).map((block) => [label(block), block] as const),
  )('%s is a valid gen-webhooks config', async (_, block) => {
    // The config a reader writes: its default export, as the CLI would validate it.
    const mod = (await import(pathToFileURL(fileOf(block)).href)) as { default?: unknown };
    const json = path.join(dir, `${path.basename(fileOf(block), '.ts')}.json`);
    writeFileSync(json, JSON.stringify(mod.default));
    const config = await loadConfig(json); // throws invalid_config on a mistake
    expect(config).toMatchObject({ package: { name: expect.any(String) } });
    expect(config.package?.name).toBe((mod.default as { package?: { name?: string } }).package?.name);
  });
});
