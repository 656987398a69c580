/**
 * A project that builds with tsc (outDir, no bundler) and runs the JavaScript it emitted: tsc copies
 * no .js source, so the generator must write validators.ts there, and the built receiver must
 * handle a signed delivery, answer the duplicate and reject a tampered one.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../generator/generate.js';
import { installRuntime } from './package/install-runtime.js';
import { repoRoot } from './types/typecheck.js';

// Outside the repository, so no tsconfig.json or node_modules of ours is above it.
const project = mkdtempSync(path.join(os.tmpdir(), 'gw-tsc-build-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

const TSCONFIG = `{
  // What \`tsc --init\` projects look like: comments, trailing commas, an emit to dist/.
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": true,
    "exactOptionalPropertyTypes": true,
    "noUncheckedIndexedAccess": true,
    "verbatimModuleSyntax": true,
    "erasableSyntaxOnly": true,
    "skipLibCheck": false,
    "types": [],
    "lib": ["ES2023", "DOM"],
    "rootDir": "src",
    "outDir": "dist", /* tsc writes the JavaScript here */
  },
  "include": ["src"],
}
`;

const MAIN = `import { memoryStore, createSignatureScheme } from '@gen-webhooks/runtime';
import { fixtures } from './webhooks/petstore-openapi/fixtures.js';
import { contract, createReceiver } from './webhooks/petstore-openapi/index.js';

const secret = 'tsc-build-secret';
const adopted: number[] = [];
const receiver = createReceiver({
  secret,
  store: memoryStore(),
  // Strict so a payload the contract forbids is answered 400 (the default reports and processes).
  validation: 'strict',
  handlers: { 'pet.adopted': ({ data }) => void adopted.push(data.petId) },
});
const scheme = createSignatureScheme(contract.signature, { secret });
const id = 'evt_tsc_build_1';
const timestamp = Math.floor(Date.now() / 1000);
const body = JSON.stringify({
  id,
  event: 'pet.adopted',
  timestamp: new Date(timestamp * 1000).toISOString(),
  apiVersion: '2024-06-01',
  data: fixtures['pet.adopted'],
});
const headers = await scheme.sign({ id, timestamp, body });
const first = await receiver.handle({ headers, body });
const again = await receiver.handle({ headers, body });
const tampered = await receiver.handle({ headers, body: body.replace('"pet.adopted"', '"pet.adopted" ') });
const invalid = JSON.stringify({ ...JSON.parse(body), data: { petId: 'not a number' } });
const rejected = await receiver.handle({ headers: await scheme.sign({ id: 'evt_2', timestamp, body: invalid }), body: invalid });
console.log(JSON.stringify({
  outcomes: [first.outcome, again.outcome, tampered.status, rejected.status],
  adopted,
}));
`;

function link(name: string): void {
  const target = path.join(project, 'node_modules', name);
  mkdirSync(path.dirname(target), { recursive: true });
  symlinkSync(path.join(repoRoot, 'node_modules', name), target, 'dir');
}

describe('a project that builds with tsc', () => {
  let result: Awaited<ReturnType<typeof generate>>;
  beforeAll(async () => {
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(path.join(project, 'tsconfig.json'), TSCONFIG);
    mkdirSync(path.join(project, 'src'));
    writeFileSync(path.join(project, 'src/main.ts'), MAIN);
    installRuntime(project);
    link('zod');
    result = await generate({
      inputs: [path.join(repoRoot, 'schemas/petstore.openapi.yaml')],
      out: path.join(project, 'src/webhooks'),
      cwd: repoRoot,
    });
  }, 120_000);

  it('gets validators.ts, which tsc compiles and copies', () => {
    expect(result.moduleForm.form).toBe('ts');
    expect(result.moduleForm.reason).toMatch(/emits JavaScript with tsc/);
    const folder = path.join(project, 'src/webhooks/petstore-openapi');
    expect(existsSync(path.join(folder, 'validators.ts'))).toBe(true);
    expect(existsSync(path.join(folder, 'validators.js'))).toBe(false);
    expect(existsSync(path.join(folder, 'validators.d.ts'))).toBe(false);
  });

  it('type-checks under strict options, builds, and the built receiver handles deliveries', () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const build = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
    expect(build.stdout + build.stderr).toBe('');
    expect(build.status).toBe(0);
    expect(existsSync(path.join(project, 'dist/webhooks/petstore-openapi/validators.js'))).toBe(true);
    const out = execFileSync(process.execPath, [path.join(project, 'dist/main.js')], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual({ outcomes: ['processed', 'duplicate', 401, 400], adopted: [4211] });
  }, 120_000);
});
