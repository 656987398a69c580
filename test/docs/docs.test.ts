/**
 * Every ```ts block of README.md and docs/*.md, checked the way a reader would use it: after the
 * README's quick start (`gen-webhooks schemas/ --out generated`), in the repository root. The
 * Petstore SDK is generated from schemas/ into a temp folder's `generated/` (the blocks import
 * `./generated/petstore-openapi/…`), every block is type-checked with tsc (strict, NodeNext,
 * `@gen-webhooks/runtime` → runtime sources), and every block that is not marked `fragment` runs
 * in its own `node --import tsx` process (test/docs/run-block.ts) from that folder. Fragments
 * type-check against the declarations of test/docs/prelude.ts. Blocks that read DATABASE_URL or
 * REDIS_URL get a fresh PostgreSQL database / the Redis server (skipped locally without them,
 * never under CI=true). The examples see PORT=0 and the secrets in EXAMPLE_ENV, as a reader's
 * shell would have them.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../generator/index.js';
import { missingEnv } from '../support/requires.js';
import { repoRoot, typecheck } from '../types/typecheck.js';
import { type DocBlock, extractBlocks } from './blocks.js';
import { FRAGMENT_PRELUDE } from './prelude.js';

const run = promisify(execFile);

/** What the examples read from the environment besides the database URLs. */
const EXAMPLE_ENV: Readonly<Record<string, string>> = {
  PORT: '0',
  PETSTORE_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  STRIPE_WEBHOOK_SECRET: 'whsec_test_stripe_secret',
  WEBHOOK_KEY_2026_06: Buffer.alloc(32, 7).toString('base64'),
};

const docs = [
  'README.md',
  ...readdirSync(path.join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const blocks = docs.flatMap((doc) => extractBlocks(doc, readFileSync(path.join(repoRoot, doc), 'utf8')));
const programs = blocks.filter((b) => b.kind === 'program');

mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
const dir = mkdtempSync(path.join(repoRoot, 'test/.tmp/docs-'));
const fileOf = (block: DocBlock) => path.join(dir, `${block.doc.replace(/[/.]/g, '-')}-L${block.line}.ts`);
const label = (block: DocBlock) => `${block.doc}:${block.line}`;
const needs = (block: DocBlock, name: string) => block.code.includes(`process.env.${name}`);

let database: { url: string; name: string } | undefined;
const admin = process.env.DATABASE_URL;

beforeAll(async () => {
  await generate({ inputs: [path.join(repoRoot, 'schemas')], out: path.join(dir, 'generated') });
  for (const block of blocks) writeFileSync(fileOf(block), `${block.code}\nexport {};\n`);
  writeFileSync(path.join(dir, 'fragment-prelude.d.ts'), FRAGMENT_PRELUDE);
  // tsx reads `paths` from here, so the examples run against the runtime sources, as tsc checks them.
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        baseUrl: repoRoot,
        paths: { '@gen-webhooks/runtime': ['./runtime/index.ts'], 'gen-webhooks': ['./generator/index.ts'] },
      },
    }),
  );
  if (admin) {
    const name = `docs_${process.pid}_${Date.now().toString(36)}`;
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    const url = new URL(admin);
    url.pathname = `/${name}`;
    database = { url: url.toString(), name };
  }
}, 180_000);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  if (admin && database) {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${database.name} WITH (FORCE)`);
    await client.end();
  }
});

/** `file(line,col): message` → `doc:line message`, the line counted in the Markdown file. */
function locate(diagnostic: string): string {
  for (const block of blocks) {
    const file = path.relative(repoRoot, fileOf(block));
    if (!diagnostic.startsWith(file)) continue;
    const match = /^[^(]+\((\d+),(\d+)\): (.*)$/s.exec(diagnostic);
    if (match) return `${block.doc}:${block.line + Number(match[1]) - 1}:${match[2]} ${match[3]}`;
  }
  return diagnostic;
}

describe('documentation examples (README.md, docs/*.md)', () => {
  it('finds the blocks of every guide', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(45);
    for (const doc of ['README.md', 'docs/sender.md', 'docs/receiver.md', 'docs/runtime-signing.md']) {
      expect(programs.filter((b) => b.doc === doc).length, doc).toBeGreaterThan(0);
    }
  });

  it('type-check against the runtime and the generated Petstore SDK', () => {
    const diagnostics = [
      ...typecheck(programs.map(fileOf)),
      ...typecheck([
        path.join(dir, 'fragment-prelude.d.ts'),
        ...blocks.filter((b) => b.kind === 'fragment').map(fileOf),
      ]),
    ];
    expect(diagnostics.map(locate)).toEqual([]);
  }, 300_000);

  it.each(programs.map((block) => [label(block), block] as const))(
    '%s runs',
    async (_, block) => {
      if (needs(block, 'DATABASE_URL') && missingEnv('DATABASE_URL', `the example at ${label(block)}`))
        return;
      if (needs(block, 'REDIS_URL') && missingEnv('REDIS_URL', `the example at ${label(block)}`)) return;
      const env: Record<string, string | undefined> = {
        ...process.env,
        ...EXAMPLE_ENV,
        TSX_TSCONFIG_PATH: path.join(dir, 'tsconfig.json'),
      };
      if (database) env['DATABASE_URL'] = database.url;
      try {
        await run(
          process.execPath,
          ['--import', 'tsx', path.join(repoRoot, 'test/docs/run-block.ts'), fileOf(block)],
          {
            cwd: dir,
            env,
            timeout: 60_000,
          },
        );
      } catch (error) {
        const { stderr, stdout } = error as { stderr?: string; stdout?: string };
        throw new Error(`${label(block)} failed:\n${stderr ?? ''}${stdout ?? ''}`);
      }
    },
    90_000,
  );
});
