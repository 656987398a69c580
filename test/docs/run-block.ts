/**
 * Runs one documented example: `node --import tsx run-block.ts <file>`. The example passes when its
 * module (top-level await included) finishes without throwing and nothing fails asynchronously in
 * the moments after (an unhandled rejection, an `'error'` event such as EADDRINUSE). Servers and
 * workers an example starts keep running, as they would for a reader, until this process exits.
 */
import { pathToFileURL } from 'node:url';

const SETTLE_MS = 300;
const DEADLINE_MS = 30_000;

function fail(what: string, error: unknown): never {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`${what}: ${text}\n`);
  process.exit(1);
}

process.on('unhandledRejection', (error) => fail('unhandled rejection', error));
process.on('uncaughtException', (error) => fail('uncaught exception', error));

const file = process.argv[2];
if (file === undefined) fail('usage', 'run-block.ts <file>');
const deadline = setTimeout(
  () => fail('timeout', `the example did not finish within ${DEADLINE_MS} ms`),
  DEADLINE_MS,
);
try {
  await import(pathToFileURL(file).href);
} catch (error) {
  fail('the example threw', error);
}
clearTimeout(deadline);
await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
process.exit(0);
