/**
 * Readers of `x-gen-webhooks` values: each checks one value at its location and throws an
 * `invalid_extension` GeneratorError naming the file, the JSON pointer and what was expected.
 */
import type { SignatureConfig } from '@gen-webhooks/runtime';
import { GeneratorError } from '../errors.js';
import { child, isRecord, type Loc } from '../load/document-store.js';

export const EXTENSION_KEY = 'x-gen-webhooks';

export function fail(loc: Loc, message: string, expected: string): never {
  throw new GeneratorError('invalid_extension', `${EXTENSION_KEY}: ${message}`, {
    file: loc.doc.display,
    pointer: loc.pointer,
    expected,
  });
}

export function object(loc: Loc, what: string): Record<string, unknown> {
  if (!isRecord(loc.value)) fail(loc, `${what} must be a mapping`, `a mapping (${what})`);
  return loc.value;
}

export function onlyKeys(
  loc: Loc,
  value: Record<string, unknown>,
  allowed: readonly string[],
  what: string,
): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      fail(child(loc, key), `unknown key "${key}" in ${what}`, `one of ${allowed.join(', ')}`);
    }
  }
}

export function oneOf<T extends string>(loc: Loc, allowed: readonly T[], what: string): T {
  if (typeof loc.value !== 'string' || !(allowed as readonly string[]).includes(loc.value)) {
    fail(
      loc,
      `invalid ${what} ${JSON.stringify(loc.value)}`,
      `one of ${allowed.map((a) => `"${a}"`).join(', ')}`,
    );
  }
  return loc.value as T;
}

export function text(loc: Loc, what: string): string {
  if (typeof loc.value !== 'string' || loc.value === '') {
    fail(loc, `${what} must be a non-empty string`, 'a non-empty string');
  }
  return loc.value;
}

export function optionalText(loc: Loc, what: string): string | undefined {
  return loc.value === undefined ? undefined : text(loc, what);
}

export function number(
  loc: Loc,
  what: string,
  min: number,
  opts: { integer?: boolean; max?: number } = {},
): number {
  const v = loc.value;
  const kind = opts.integer ? 'an integer' : 'a number';
  const range = opts.max === undefined ? `>= ${min}` : `between ${min} and ${opts.max}`;
  if (
    typeof v !== 'number' ||
    !Number.isFinite(v) ||
    (opts.integer && !Number.isInteger(v)) ||
    v < min ||
    (opts.max !== undefined && v > opts.max)
  ) {
    fail(loc, `invalid ${what} ${JSON.stringify(v)}`, `${kind} ${range}`);
  }
  return v;
}

export type Asymmetric = Extract<SignatureConfig, { kind: 'asymmetric' }>;
/** The key-pair algorithms a contract may declare (`x-gen-webhooks` and Fern's extension). */
export const ASYMMETRIC_ALGORITHMS = [
  'ed25519',
  'ecdsa-sha256',
  'ecdsa-sha384',
  'ecdsa-sha512',
  'rsa-sha256',
  'rsa-sha384',
  'rsa-sha512',
] as const satisfies readonly Asymmetric['algorithm'][];
