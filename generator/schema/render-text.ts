/**
 * Text pieces both zod renderers (classic in zod.ts, zod/mini in zod-mini.ts) write the same way:
 * indentation, line wrapping of lists, number and count spelling, and the `time` format's pattern.
 */

export const STEP = '  ';
export const MAX_LINE = 100;
export const SAFE = Number.MAX_SAFE_INTEGER;

/** RFC 3339 `full-time` (JSON Schema `time`): seconds and an offset are required; leap second allowed. */
export const TIME_PATTERN =
  '/^([01]\\d|2[0-3]):[0-5]\\d:([0-5]\\d|60)(\\.\\d+)?([zZ]|[+-]([01]\\d|2[0-3]):[0-5]\\d)$/';

export function num(value: number): string {
  return Object.is(value, -0) ? '0' : String(value);
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `open` + items + `close`, on one line when short, else one item per line with trailing commas. */
export function list(open: string, items: string[], close: string, indent: string): string {
  const single = `${open}${items.join(', ')}${close}`;
  if (single.length <= MAX_LINE && !items.some((item) => item.includes('\n'))) return single;
  return `${open}\n${items.map((item) => `${indent}${STEP}${item},`).join('\n')}\n${indent}${close}`;
}
