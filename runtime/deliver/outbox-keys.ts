/**
 * The option check `sqliteOutbox` and `postgresOutbox` share (known-options.ts): their own keys (each
 * tied to its options type where it is declared), then each `secretKeys` entry's.
 */
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import type { SecretKey } from './secret-box.js';

const SECRET_KEY_KEYS = { id: true, key: true } as const satisfies KnownKeys<SecretKey>;

export function checkOutboxOptions(
  factory: string,
  options: { readonly secretKeys?: readonly SecretKey[] },
  known: { readonly [key: string]: true },
): void {
  checkKnownOptions(factory, options, known);
  const keys: unknown = options?.secretKeys;
  if (!Array.isArray(keys)) return;
  for (const [i, key] of keys.entries()) {
    checkKnownOptions(factory, key, SECRET_KEY_KEYS, undefined, `secretKeys[${i}]`);
  }
}
