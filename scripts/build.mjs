// Clean build of both packages: runtime/dist (the runtime, which the generator's types import), then dist/ (the generator and CLI).
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pruneDist } from './prune-dist.mjs';

execFileSync(process.execPath, [new URL('./build-runtime.mjs', import.meta.url).pathname], {
  stdio: 'inherit',
});
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
  stdio: 'inherit',
  cwd: new URL('..', import.meta.url),
});
// The API's declarations and the CLI's code: nothing else is reachable from the export map and bin.
pruneDist(new URL('../dist', import.meta.url).pathname, ['generator/index.js', 'generator/cli.js']);
