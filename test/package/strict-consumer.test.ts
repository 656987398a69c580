import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../../generator/generate.js';
import { repoRoot } from '../types/typecheck.js';
import { installRuntime } from './install-runtime.js';

// Outside the repository: no node_modules of ours up the tree for the compiler to find.
const tmp = mkdtempSync(path.join(os.tmpdir(), 'gw-strict-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const STRICT: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noPropertyAccessFromIndexSignature: true,
  verbatimModuleSyntax: true,
  erasableSyntaxOnly: true,
  isolatedModules: true,
  noImplicitOverride: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noEmit: true,
};

function compile(project: string, files: string[], options: ts.CompilerOptions): string[] {
  const program = ts.createProgram({
    rootNames: files.map((f) => path.join(project, f)),
    options: { ...STRICT, typeRoots: [path.join(project, 'node_modules/@types')], ...options },
  });
  const host: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => project,
    getNewLine: () => '\n',
  };
  return ts.getPreEmitDiagnostics(program).map((d) => ts.formatDiagnostic(d, host).trim());
}

function linkPackage(project: string, name: string): void {
  const target = path.join(project, 'node_modules', name);
  mkdirSync(path.dirname(target), { recursive: true });
  symlinkSync(path.join(repoRoot, 'node_modules', name), target, 'dir');
}

const CONSUMER = `
import {
  type Contract,
  createReceiver,
  createSender,
  memoryStore,
  postgresStore,
  redisStore,
  sqliteStore,
  standardWebhooks,
  type StandardSchemaV1,
} from '@gen-webhooks/runtime';
import * as node from '@gen-webhooks/runtime/node';
import * as web from '@gen-webhooks/runtime/web';

type Events = { 'pet.adopted': { readonly petId: string } };
declare const schema: StandardSchemaV1<Events['pet.adopted']>;
const contract: Contract<Events> = {
  name: 'petstore',
  version: '1',
  events: { 'pet.adopted': { schema } },
  signature: { kind: 'standard-webhooks' },
  envelope: { kind: 'envelope' },
  selector: { kind: 'envelope-type' },
};
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const handlers = { 'pet.adopted': (event: { readonly data: Events['pet.adopted'] }) => event.data.petId.length };
export const receivers = [
  createReceiver(contract, { secret, store: memoryStore(), handlers }),
  web.createReceiver(contract, { secret, store: web.memoryStore(), handlers }),
  node.createReceiver(contract, { secret, dedupe: false, handlers }),
];
// The Web build's receiver and sender have the Node build's types: generated code compiles on both.
export const sameReceiver: typeof node.createReceiver = web.createReceiver;
export const sameSender: typeof node.createSender = web.createSender;
export const sender = createSender(contract, {});
export const stores = [sqliteStore, postgresStore, redisStore, web.postgresStore, web.redisStore];
export const scheme = standardWebhooks({ secret });
export const webScheme: web.SignatureScheme = web.standardWebhooksWeb({ secret });
export const presets = [web.providers.stripe.scheme({ secret: 'whsec_x' }), node.providers.github.scheme({ secret: 'x' })];
`;

describe('the built runtime declarations in a project with only zod and typescript', () => {
  const project = path.join(tmp, 'package');
  beforeAll(() => {
    installRuntime(project);
    linkPackage(project, 'zod');
    linkPackage(project, 'typescript');
    writeFileSync(path.join(project, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(path.join(project, 'consumer.ts'), CONSUMER);
  }, 180_000);

  it('has nothing in node_modules but zod, typescript and the runtime', () => {
    expect(readdirSync(path.join(project, 'node_modules')).sort()).toEqual([
      '@gen-webhooks',
      'typescript',
      'zod',
    ]);
  });

  it.each([false, true])(
    'compiles under strict settings (skipLibCheck: %s)',
    (skipLibCheck) => {
      expect(compile(project, ['consumer.ts'], { skipLibCheck, types: [] })).toEqual([]);
    },
    120_000,
  );
});

describe('a --runtime inline module in a project with only zod (and @types/node)', () => {
  const project = path.join(tmp, 'inline');
  let files: readonly string[] = [];
  beforeAll(async () => {
    const result = await generate({
      inputs: ['schemas/petstore.openapi.yaml'],
      out: path.join(project, 'generated'),
      cwd: repoRoot,
      runtime: 'inline',
    });
    files = result.contracts[0]?.files ?? [];
    linkPackage(project, 'zod');
    linkPackage(project, 'typescript');
    linkPackage(project, '@types/node');
    writeFileSync(path.join(project, 'package.json'), '{ "type": "module" }\n');
  }, 120_000);

  it('copies only the runtime files the generated module imports', () => {
    const runtime = files
      .filter((f) => f.startsWith('petstore-openapi/runtime/'))
      .map((f) => f.slice('petstore-openapi/'.length));
    expect(runtime).toContain('runtime/index.ts');
    expect(runtime).toContain('runtime/receive/create-receiver.ts');
    expect(runtime).toContain('runtime/deliver/sender.ts');
    // The memory store comes along: an SDK package's smoke test dedupes with the inlined copy alone.
    const unused = runtime.filter((f) =>
      /^runtime\/(stores\/(sqlite|postgres|redis)|deliver\/(sqlite|postgres)-outbox|manage\/|drivers\/|adapters\/(express|fastify)|web\.ts|inline\.ts)/.test(
        f,
      ),
    );
    expect(unused).toEqual([]);
    // The copy imports no package but zod (and Node built-ins).
    const bare = new Set<string>();
    for (const file of files.filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(path.join(project, 'generated', file), 'utf8');
      for (const m of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'([^'.][^']*)'/gm)) {
        if (!m[1]?.startsWith('node:')) bare.add(m[1] ?? '');
      }
    }
    expect([...bare]).toEqual(['zod']);
  });

  it.each([false, true])(
    'compiles under strict settings (skipLibCheck: %s)',
    (skipLibCheck) => {
      expect(
        compile(project, ['generated/petstore-openapi/index.ts'], { skipLibCheck, types: ['node'] }),
      ).toEqual([]);
    },
    120_000,
  );
});

// The versions this repository tests with, installed for real (npm, from its cache when it can).
const ZOD = JSON.parse(readFileSync(path.join(repoRoot, 'node_modules/zod/package.json'), 'utf8')).version;
const TYPESCRIPT = ts.version;

/** tsconfig settings a Node user writes (no lib.dom) and a bundler/DOM user writes. */
const USER_CONFIGS: Record<string, Record<string, unknown>> = {
  node16: { module: 'node16', moduleResolution: 'node16', lib: ['es2022'] },
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022'] },
  'bundler, DOM': { module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom', 'dom.iterable'] },
};

describe('a --runtime inline module in a project with only zod and typescript installed (no @types/node)', () => {
  const project = path.join(tmp, 'inline-bare');
  const contracts = ['petstore-openapi', 'petstore-asyncapi', 'keys-openapi31'];
  beforeAll(async () => {
    mkdirSync(project, { recursive: true });
    writeFileSync(
      path.join(project, 'package.json'),
      '{ "name": "consumer", "private": true, "type": "module" }\n',
    );
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    execFileSync(
      npm,
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '-E',
        `zod@${ZOD}`,
        `typescript@${TYPESCRIPT}`,
      ],
      { cwd: project, stdio: 'pipe' },
    );
    await generate({
      // Petstore (HMAC), its AsyncAPI twin, and a key-pair contract (the Web Crypto key handling).
      inputs: [
        'schemas/petstore.openapi.yaml',
        'schemas/petstore.asyncapi.yaml',
        'test/golden/specs/keys.openapi31.yaml',
      ],
      out: path.join(project, 'generated'),
      cwd: repoRoot,
      runtime: 'inline',
    });
  }, 300_000);

  it('has nothing in node_modules but zod and typescript', () => {
    expect(
      readdirSync(path.join(project, 'node_modules'))
        .filter((f) => !f.startsWith('.'))
        .sort(),
    ).toEqual(['typescript', 'zod']);
  });

  it('imports no node: module (the copy reaches Node built-ins through its own typed shims)', () => {
    for (const contract of contracts) {
      const dir = path.join(project, 'generated', contract, 'runtime');
      const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
      const offending = files.filter((f) =>
        /from 'node:|import\('node:/.test(readFileSync(path.join(dir, f), 'utf8')),
      );
      expect(offending).toEqual([]);
    }
  });

  const cases = Object.keys(USER_CONFIGS).flatMap((config) =>
    [false, true].map((skipLibCheck) => ({ config, skipLibCheck })),
  );
  it.each(cases)(
    'type-checks with tsc -p under strict settings ($config, skipLibCheck: $skipLibCheck)',
    ({ config, skipLibCheck }) => {
      const name = `tsconfig.${config.replace(/\W+/g, '-')}.${skipLibCheck}.json`;
      const tsconfig = {
        compilerOptions: {
          target: 'es2022',
          ...USER_CONFIGS[config],
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          noPropertyAccessFromIndexSignature: true,
          verbatimModuleSyntax: true,
          erasableSyntaxOnly: true,
          noImplicitOverride: true,
          noImplicitReturns: true,
          noFallthroughCasesInSwitch: true,
          noUnusedLocals: true,
          noUnusedParameters: true,
          skipLibCheck,
          noEmit: true,
        },
        files: contracts.map((c) => `generated/${c}/index.ts`),
      };
      writeFileSync(path.join(project, name), JSON.stringify(tsconfig, null, 2));
      const tsc = path.join(project, 'node_modules/typescript/bin/tsc');
      let output = '';
      try {
        execFileSync(process.execPath, [tsc, '-p', name], { cwd: project, encoding: 'utf8', stdio: 'pipe' });
      } catch (error) {
        output = String((error as { stdout?: string }).stdout ?? error);
      }
      expect(output).toBe('');
    },
    120_000,
  );
});
