/**
 * Argument parsing shared by the developer tools (send, replay, listen, mock-receiver). Built on
 * `node:util` `parseArgs` in strict mode; every problem becomes one `GeneratorError('invalid_argument')`
 * line that names the command, so `gen-webhooks send --bogus` says what to do instead of a stack trace.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { GeneratorError } from '../errors.js';

export type OptionSpec =
  | { readonly type: 'string'; readonly multiple?: boolean; readonly short?: string }
  | { readonly type: 'boolean'; readonly short?: string };

export interface ParsedArgs {
  readonly values: { readonly [name: string]: string | boolean | readonly string[] | undefined };
  readonly positionals: readonly string[];
}

/** Parses `argv` strictly; unknown or malformed flags throw one `invalid_argument` line. */
export function parseToolArgs(
  command: string,
  argv: readonly string[],
  options: { readonly [name: string]: OptionSpec },
): ParsedArgs {
  try {
    const parsed = parseArgs({
      args: [...argv],
      options: options as ParseArgsConfig['options'],
      strict: true,
      allowPositionals: true,
    });
    return { values: parsed.values as ParsedArgs['values'], positionals: parsed.positionals };
  } catch (error) {
    throw new GeneratorError('invalid_argument', `${command}: ${describeParseError(error)}`, {
      expected: `the options listed by \`gen-webhooks ${command} --help\``,
      cause: error,
    });
  }
}

function describeParseError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  // Node's messages are long and mention `args`; keep the first sentence, which names the flag.
  const first = error.message.split('. ')[0] ?? error.message;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return first.replace(/^Unknown option/, 'unknown option');
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return first.replace(/^Option/, 'option');
  return first;
}

/** A string flag, or `undefined`. */
export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value[value.length - 1];
  return undefined;
}

/** A repeatable string flag (e.g. `--header`), in order. */
export function listFlag(args: ParsedArgs, name: string): string[] {
  const value = args.values[name];
  if (value === undefined || typeof value === 'boolean') return [];
  return typeof value === 'string' ? [value] : [...value];
}

export function booleanFlag(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true;
}

/** A string flag that must be present. */
export function requiredFlag(command: string, args: ParsedArgs, name: string, what: string): string {
  const value = stringFlag(args, name);
  if (value === undefined || value === '') {
    throw new GeneratorError('invalid_argument', `${command}: --${name} is required (${what})`);
  }
  return value;
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses `500ms`, `5s`, `1.5m`, `1h`; a bare number is seconds. Returns milliseconds. */
export function parseDuration(command: string, flag: string, text: string): number {
  const match = DURATION.exec(text.trim());
  if (!match) {
    throw new GeneratorError(
      'invalid_argument',
      `${command}: --${flag} ${JSON.stringify(text)} is not a duration`,
      {
        expected: 'a number with a unit, e.g. 500ms, 5s, 2m (a bare number means seconds)',
      },
    );
  }
  return Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? 's'] ?? 1000));
}

/** Parses an integer in `[min, max]`. */
export function parseInteger(command: string, flag: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new GeneratorError(
      'invalid_argument',
      `${command}: --${flag} ${JSON.stringify(text)} is out of range`,
      {
        expected: `an integer from ${min} to ${max}`,
      },
    );
  }
  return value;
}

/** Parses a probability in `[0, 1]` (`0.3`, or a percentage such as `30%`). */
export function parseRate(command: string, flag: string, text: string): number {
  const trimmed = text.trim();
  const percent = trimmed.endsWith('%');
  const value = Number(percent ? trimmed.slice(0, -1) : trimmed) / (percent ? 100 : 1);
  if (trimmed === '' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new GeneratorError(
      'invalid_argument',
      `${command}: --${flag} ${JSON.stringify(text)} is not a rate`,
      {
        expected: 'a number from 0 to 1 (or a percentage such as 30%)',
      },
    );
  }
  return value;
}

/** Parses `name:value` (or `name=value`) header flags; the name must be a valid HTTP token. */
export function parseHeaderFlag(command: string, text: string): [string, string] {
  const index = text.search(/[:=]/);
  const name = index > 0 ? text.slice(0, index).trim() : '';
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    throw new GeneratorError(
      'invalid_argument',
      `${command}: --header ${JSON.stringify(text)} is malformed`,
      {
        expected: 'name:value, e.g. --header "x-tenant: acme"',
      },
    );
  }
  return [name, text.slice(index + 1).trim()];
}

/** Parses an absolute http(s) URL. */
export function parseUrl(command: string, flag: string, text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new GeneratorError(
      'invalid_argument',
      `${command}: --${flag} ${JSON.stringify(text)} is not a URL`,
      {
        expected: 'an absolute http(s) URL, e.g. http://127.0.0.1:3000/webhooks',
      },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    // `localhost:3000` parses as a URL with the scheme `localhost:`; say what was probably meant.
    throw new GeneratorError(
      'invalid_argument',
      `${command}: --${flag} ${JSON.stringify(text)} is not an http(s) URL`,
      {
        expected: `an absolute http(s) URL, e.g. http://${/^[\w.-]+:\d+/.test(text) ? text : '127.0.0.1:3000/webhooks'}`,
      },
    );
  }
  return url;
}
