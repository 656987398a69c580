/** Shared by the parser tests: fixture paths and error capture. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GeneratorError } from '../errors.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/specs/', import.meta.url));

/** Absolute path of a fixture; `name` may carry a `#/pointer` suffix (kept as is). */
export const fixture = (name: string): string => path.join(FIXTURES, name);

export async function generatorError(run: () => unknown): Promise<GeneratorError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof GeneratorError) return error;
    throw error;
  }
  throw new Error('expected a GeneratorError');
}
