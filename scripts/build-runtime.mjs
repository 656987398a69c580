// Clean build of @gen-webhooks/runtime: runtime/dist from runtime/.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { exportedEntries, pruneDist } from './prune-dist.mjs';

const runtime = new URL('../runtime/', import.meta.url);
rmSync(new URL('dist', runtime), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', new URL('tsconfig.build.json', runtime).pathname], {
  stdio: 'inherit',
});
// Only what the export map's entries load ships (inline.ts, for instance, is read as source by the generator).
const packageJson = JSON.parse(readFileSync(new URL('package.json', runtime), 'utf8'));
pruneDist(new URL('dist', runtime).pathname, exportedEntries(packageJson));
