import { GeneratorError } from '../errors.js';

/** A usage mistake (missing positional, stray argument) as one line pointing at `--help`. */
export function usageError(command: string, message: string): GeneratorError {
  return new GeneratorError('invalid_argument', `${command}: ${message}`, {
    expected: `the usage shown by \`gen-webhooks ${command} --help\``,
  });
}
