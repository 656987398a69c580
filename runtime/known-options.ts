/**
 * Unknown option keys are refused (`invalid_config`), never ignored: TypeScript already rejects them,
 * but a JavaScript caller (or a cast) passing a renamed option would otherwise get the default with no
 * word — `mode: 'inline'` silently became ack-fast once `ackFast: false` replaced it.
 *
 * Each factory declares its keys as `{ a: true, … } satisfies KnownKeys<Options>`: a key missing
 * from the list, or listed but not in the interface, fails `tsc`, so the list cannot drift.
 */

import { WebhookError } from './errors.js';

/** Every key of every member of a union (`keyof` of a union keeps only the shared ones). */
export type AllKeys<T> = T extends unknown ? keyof T : never;

/** An exhaustive key list for an options type: each key, and no other, mapped to `true`. */
export type KnownKeys<T> = { readonly [K in AllKeys<T> & string]-?: true };

/**
 * For a list declared away from its type (where importing the type would make a cycle):
 * `LIST satisfies ExactKeys<typeof LIST, Options>` holds only when it names each key and no other.
 */
export type ExactKeys<List, T> = KnownKeys<T> & { readonly [K in Exclude<keyof List, AllKeys<T>>]: never };

/** Options that were renamed: old key → what to write instead (shown as is). */
export type RenamedKeys = { readonly [key: string]: string };

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Throws `invalid_config` for the first own key of `options` not in `known`, naming it (details
 * `option`) and its replacement when it was renamed (details `replacement`), else the keys it takes
 * (details `expected`). `parent` names a nested options object (`worker` → `worker.pollMs`).
 * Non-objects pass: the factory's own checks answer those.
 */
export function checkKnownOptions(
  factory: string,
  options: unknown,
  known: { readonly [key: string]: true },
  renamed?: RenamedKeys,
  parent?: string,
): void {
  if (options === null || typeof options !== 'object') return;
  for (const own of Object.keys(options)) {
    if (hasOwn.call(known, own)) continue;
    const replacement = renamed !== undefined && hasOwn.call(renamed, own) ? renamed[own] : undefined;
    const key = parent === undefined ? own : `${parent}.${own}`;
    throw new WebhookError(
      'invalid_config',
      replacement === undefined
        ? `${factory}: unknown option \`${key}\``
        : `${factory}: unknown option \`${key}\` (renamed: use ${replacement})`,
      {
        details:
          replacement === undefined
            ? { option: key, expected: Object.keys(known) }
            : { option: key, replacement },
      },
    );
  }
}
