/** Header access that works the same for Fetch `Headers` and Node's lower-cased header records. */
import type { HeadersInput } from './signing/scheme.js';

/**
 * Returns the header's value, or `undefined` when absent. Repeated headers in a Node record are
 * joined with `, ` as Fetch does, so every caller sees one string.
 */
export function getHeader(headers: HeadersInput, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const record = headers as { readonly [name: string]: string | readonly string[] | undefined };
  const lower = name.toLowerCase();
  let value = record[lower];
  if (value === undefined) {
    // Plain objects written by hand may keep the original casing.
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() === lower) {
        value = record[key];
        break;
      }
    }
  }
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}
