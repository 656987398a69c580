/**
 * `node --import tsx typecheck-blocks.ts <file>…`: the documentation blocks as one tsc program,
 * in a process of its own, so the check runs beside the blocks instead of blocking the test's
 * event loop. Prints the diagnostics as a JSON array (empty when everything compiles).
 */
import { typecheck } from '../types/typecheck.js';

process.stdout.write(JSON.stringify(typecheck(process.argv.slice(2))));
