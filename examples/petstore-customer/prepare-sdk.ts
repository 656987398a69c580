/**
 * Makes the customer's dependency `petstore-openapi-webhooks` (package.json: `file:.sdk/petstore-openapi`)
 * real: runs `gen-webhooks schemas/ --package examples/petstore-customer/.sdk` — the package a
 * provider would publish — and links it into node_modules/ as `npm install` links a `file:` folder.
 * The package's own dependencies (`@gen-webhooks/runtime`, `zod`) resolve from this repository's
 * node_modules, so nothing is fetched from a registry.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
export const SDK_NAME = 'petstore-openapi-webhooks';

export function prepareSdk(log: (line: string) => void = console.log): string {
  const out = path.join(here, '.sdk');
  const cli = path.join(repoRoot, 'generator/cli.ts');
  const run = spawnSync(process.execPath, ['--import', 'tsx', cli, 'schemas/', '--package', out, '--quiet'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  if (run.status !== 0) {
    throw new Error(
      `gen-webhooks schemas/ --package failed (exit ${run.status}):\n${run.stderr}${run.stdout}`,
    );
  }
  const target = path.join(out, 'petstore-openapi');
  const manifest = JSON.parse(readFileSync(path.join(target, 'package.json'), 'utf8')) as { name: string };
  if (manifest.name !== SDK_NAME) throw new Error(`expected package ${SDK_NAME}, generated ${manifest.name}`);
  const link = path.join(here, 'node_modules', SDK_NAME);
  mkdirSync(path.dirname(link), { recursive: true });
  if (existsSync(link) || isSymlink(link)) rmSync(link, { recursive: true, force: true });
  symlinkSync(path.relative(path.dirname(link), target), link, 'dir');
  log(`SDK ${SDK_NAME} generated from schemas/ into ${path.relative(repoRoot, target)}`);
  return target;
}

function isSymlink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}
