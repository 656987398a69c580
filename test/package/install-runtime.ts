/**
 * Installs `@gen-webhooks/runtime` into `project/node_modules` the way npm would lay it out: its
 * package.json and LICENSE, and `dist` built from the sources and pruned as `npm run build` does.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { exportedEntries, pruneDist } from '../../scripts/prune-dist.mjs';
import { repoRoot } from '../types/typecheck.js';

export function installRuntime(project: string): string {
  const pkg = path.join(project, 'node_modules/@gen-webhooks/runtime');
  mkdirSync(pkg, { recursive: true });
  for (const file of ['package.json', 'LICENSE'])
    copyFileSync(path.join(repoRoot, 'runtime', file), path.join(pkg, file));
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const dist = path.join(pkg, 'dist');
  execFileSync(process.execPath, [tsc, '-p', 'runtime/tsconfig.build.json', '--outDir', dist], {
    cwd: repoRoot,
    stdio: 'pipe',
  });
  pruneDist(dist, exportedEntries(JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8'))));
  return pkg;
}
