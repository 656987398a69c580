/**
 * `--package`: the Petstore SDK package as published. Generated against a runtime packed from this
 * checkout, `npm pack`ed, checked by publint --strict and attw, installed offline into an empty
 * project (only zod, TypeScript, the SDK and its runtime), type-checked there under the strictest
 * consumer flags with and without skipLibCheck (README examples included), and its own smoke test
 * run against the installed dist/.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../generator/generate.js';
import { repoRoot } from '../types/typecheck.js';
import {
  cli,
  installProject,
  linkDependencies,
  nodeTest,
  npmPack,
  runtimePackage,
  STRICT,
  tsBlock,
  typecheckProject,
} from './helpers.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gw-sdk-'));
const work = path.join(tmp, 'work');
const packages = path.join(work, 'packages');
const pkgDir = path.join(packages, 'petstore-openapi');
const consumer = path.join(tmp, 'consumer');
const NAME = 'petstore-openapi-webhooks';
let sdkTarball = '';

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

beforeAll(async () => {
  const runtime = runtimePackage();
  mkdirSync(work, { recursive: true });
  linkDependencies(work, runtime);
  await generate({
    inputs: ['schemas/petstore.openapi.yaml'],
    cwd: repoRoot,
    package: packages,
    packageInfo: { author: 'Petstore Inc.', repository: 'https://github.com/petstore/webhooks' },
  });
  const tarballs = path.join(tmp, 'tarballs');
  sdkTarball = npmPack(pkgDir, tarballs);
  installProject(consumer, [npmPack(runtime, tarballs), sdkTarball]);
}, 300_000);

describe('the SDK package folder', () => {
  it('has package.json, src/, dist/ (JS + .d.ts), README, LICENSE and a smoke test', () => {
    for (const file of [
      'package.json',
      'README.md',
      'LICENSE',
      'test/smoke.test.mjs',
      'src/index.ts',
      'src/runtime.ts',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/receiver.d.ts',
      'dist/fixtures.js',
    ]) {
      expect(existsSync(path.join(pkgDir, file)), file).toBe(true);
    }
    expect(readFileSync(path.join(pkgDir, 'dist/index.js'), 'utf8')).toMatch(/^export \{ contract \}/m);
    expect(readFileSync(path.join(pkgDir, 'LICENSE'), 'utf8')).toMatch(
      /^MIT License\n\nCopyright \(c\) Petstore Inc\.\n/,
    );
  });

  it('package.json: ESM, typed exports, no side effects, zod ^4 as a peer, the runtime as a dependency', () => {
    const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
    const runtimeVersion = JSON.parse(
      readFileSync(path.join(repoRoot, 'runtime/package.json'), 'utf8'),
    ).version;
    expect(pkg).toMatchObject({
      name: NAME,
      version: '0.1.0',
      license: 'MIT',
      author: 'Petstore Inc.',
      repository: { type: 'git', url: 'git+https://github.com/petstore/webhooks.git' },
      type: 'module',
      sideEffects: false,
      engines: { node: '>=20' },
      peerDependencies: { zod: '^4' },
      dependencies: { '@gen-webhooks/runtime': `^${runtimeVersion}` },
    });
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    expect(Object.keys(pkg.exports)).toEqual(['.', './fixtures', './runtime', './package.json']);
  });

  it('the README documents install, the frameworks and every event, and escapes contract text', () => {
    const readme = readFileSync(path.join(pkgDir, 'README.md'), 'utf8');
    expect(readme).toContain(`npm install ${NAME} zod`);
    for (const heading of [
      '### Express',
      '### Fastify',
      '### Hono',
      '### Next.js route handler',
      '### Cloudflare Workers',
    ]) {
      expect(readme).toContain(heading);
    }
    for (const event of [
      'order.completed',
      'order.created',
      'payment.failed',
      'payment.succeeded',
      'pet.adopted',
      'pet.status_changed',
    ]) {
      expect(readme).toContain(`### \`${event}\``);
    }
    expect(readme).toMatch(/\| `petId` \| `PetId` \| yes \|/);
    // The contract's description has `code` and <hex>: shown literally, not as markup.
    expect(readme).toContain('sha256=\\<hex\\>');
  });

  it('regenerating is byte-identical (--check finds nothing), and files the author added are kept', async () => {
    writeFileSync(path.join(pkgDir, 'NOTES.md'), 'mine\n');
    mkdirSync(path.join(pkgDir, 'node_modules/x'), { recursive: true });
    const again = await generate({
      inputs: ['schemas/petstore.openapi.yaml'],
      cwd: repoRoot,
      package: packages,
      packageInfo: { author: 'Petstore Inc.', repository: 'https://github.com/petstore/webhooks' },
      check: true,
    });
    expect(again.changed).toEqual([]);
    // A different description rewrites package.json and README, and leaves NOTES.md and node_modules/ alone.
    const changed = await generate({
      inputs: ['schemas/petstore.openapi.yaml'],
      cwd: repoRoot,
      package: packages,
      packageInfo: {
        author: 'Petstore Inc.',
        repository: 'https://github.com/petstore/webhooks',
        description: 'Other',
      },
    });
    expect([...changed.changed].sort()).toEqual([
      'petstore-openapi/README.md',
      'petstore-openapi/package.json',
    ]);
    expect(readFileSync(path.join(pkgDir, 'NOTES.md'), 'utf8')).toBe('mine\n');
    expect(existsSync(path.join(pkgDir, 'node_modules/x'))).toBe(true);
  }, 120_000);
});

describe('the packed SDK', () => {
  it('passes publint --strict', () => {
    const result = cli('publint', ['run', '--strict', sdkTarball], tmp);
    expect(result.output).toContain('All good!');
    expect(result.code).toBe(0);
  });

  it('passes @arethetypeswrong/cli for node16 (ESM) and bundler resolution (ESM-only profile)', () => {
    const result = cli(
      'attw',
      [sdkTarball, '--profile', 'esm-only', '--no-definitely-typed', '--format', 'json'],
      tmp,
    );
    const report = JSON.parse(result.output) as {
      analysis: { problems: { kind: string; resolutionKind?: string; entrypoint?: string }[] };
    };
    // The package is ESM only: `require()` from CommonJS (node16-cjs) and node10's resolver, which
    // reads no `exports`, are out of scope (the esm-only profile ignores exactly those two).
    const relevant = report.analysis.problems.filter(
      (p) => p.resolutionKind !== 'node10' && p.resolutionKind !== 'node16-cjs',
    );
    expect(relevant).toEqual([]);
    expect(new Set(report.analysis.problems.map((p) => p.kind))).toEqual(
      new Set(['NoResolution', 'CJSResolvesToESM']),
    );
    expect(result.code).toBe(0);
  });
});

describe('installed into an empty project (zod + TypeScript only)', () => {
  const files = ['env.d.ts', 'consumer.ts', 'parse.ts', 'receiver.ts', 'handler-test.ts'];

  beforeAll(() => {
    const readme = readFileSync(path.join(consumer, 'node_modules', NAME, 'README.md'), 'utf8');
    // No @types/node: the README examples read process.env, which a Node app has.
    writeFileSync(
      path.join(consumer, 'env.d.ts'),
      'declare const process: { readonly env: Readonly<Record<string, string | undefined>> };\n',
    );
    writeFileSync(path.join(consumer, 'parse.ts'), tsBlock(readme, 0));
    writeFileSync(path.join(consumer, 'receiver.ts'), tsBlock(readme, 1));
    // The README's last block: a handler's unit test with testDelivery.
    writeFileSync(path.join(consumer, 'handler-test.ts'), tsBlock(readme, 7));
    writeFileSync(
      path.join(consumer, 'consumer.ts'),
      [
        `import { createParser, createReceiver, type Events, type PetAdoptedPayload } from '${NAME}';`,
        `import { fixtures } from '${NAME}/fixtures';`,
        `import { WebhookError, type ParsedEvent } from '${NAME}/runtime';`,
        '',
        "const parser = createParser({ secret: 'whsec_test' });",
        'export async function handle(request: Request): Promise<number> {',
        '  try {',
        '    const event: ParsedEvent<Events> = await parser.verifyAndParse(request);',
        "    if (event.type === 'pet.adopted') {",
        '      const data: PetAdoptedPayload = event.data;',
        '      return data.petId;',
        '    }',
        '    // @ts-expect-error narrowed: an order.created event has no petId',
        "    if (event.type === 'order.created') return event.data.petId;",
        '    return 0;',
        '  } catch (error) {',
        '    return error instanceof WebhookError ? error.status : 500;',
        '  }',
        '}',
        "export const receiver = createReceiver({ secret: 'whsec_test', dedupe: false, handlers: {",
        "  'pet.adopted': (event) => { void event.data.adoptionFee.amount; },",
        '} });',
        "export const example: PetAdoptedPayload = fixtures['pet.adopted'];",
        '',
      ].join('\n'),
    );
  });

  it('type-checks under strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, noPropertyAccessFromIndexSignature, verbatimModuleSyntax, erasableSyntaxOnly with skipLibCheck', () => {
    expect(typecheckProject(consumer, files, { ...STRICT, skipLibCheck: true })).toEqual([]);
  }, 120_000);

  it('the check is real: a wrong use in the consumer is an error', () => {
    writeFileSync(
      path.join(consumer, 'wrong.ts'),
      `import { createParser } from '${NAME}';\ncreateParser({ secret: 1 });\n`,
    );
    expect(typecheckProject(consumer, ['wrong.ts'], { ...STRICT, skipLibCheck: true }).join('\n')).toMatch(
      /wrong\.ts\(2\).*number/,
    );
  }, 120_000);

  it('without skipLibCheck: the consumer and the SDK .d.ts have no error', () => {
    const diagnostics = typecheckProject(consumer, files, { ...STRICT, skipLibCheck: false });
    expect(diagnostics.filter((d) => !d.startsWith('node_modules/@gen-webhooks/runtime/'))).toEqual([]);
  }, 120_000);

  it('without skipLibCheck: nor the runtime .d.ts the SDK reaches (no @types/node, no driver types)', () => {
    // Fails while the runtime's declarations name node:http, Buffer, pg, better-sqlite3 or ioredis
    // types that a project without those packages cannot resolve.
    expect(typecheckProject(consumer, files, { ...STRICT, skipLibCheck: false })).toEqual([]);
  }, 120_000);

  it("runs the package's smoke test against the installed dist/: fixtures → signed → receiver → handled", () => {
    const installed = path.join(consumer, 'node_modules', NAME);
    cpSync(path.join(pkgDir, 'test'), path.join(installed, 'test'), { recursive: true });
    const result = nodeTest('test/smoke.test.mjs', installed);
    expect(result.output).toMatch(/# pass 2\n# fail 0/);
    expect(result.code).toBe(0);
  }, 120_000);
});
