#!/usr/bin/env node
// Runs the compiled CLI; `npm ci` builds dist/ through the `prepare` script.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/generator/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('gen-webhooks: dist/ is missing; run `npm run build` first.\n');
  process.exit(2);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
