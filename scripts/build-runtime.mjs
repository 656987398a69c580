// Clean build of @gen-webhooks/runtime: runtime/dist from runtime/.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const runtime = new URL('../runtime/', import.meta.url);
rmSync(new URL('dist', runtime), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', new URL('tsconfig.build.json', runtime).pathname], {
  stdio: 'inherit',
});
