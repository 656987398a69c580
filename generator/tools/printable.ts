/**
 * Text from a request (or a capture, or a receiver's answer) made safe to print: the developer tools
 * take unsigned input from any local process or browser page, and a terminal obeys what it is sent —
 * ESC/CSI/OSC sequences clear it or retitle it, `\r` rewrites a line into a fake "✔ all checks
 * passed", U+2028/2029 and bidi controls reorder or split what is shown. Each such character is shown
 * as `\uXXXX` instead.
 *
 * Escaped: C0 controls except `\n` and `\t` (so `\r` too), DEL, C1 (U+0080–U+009F), U+2028/2029, and
 * the bidi embeddings, overrides, isolates and marks (U+202A–202E, U+2066–2069, U+200E/200F, U+061C).
 * A backslash is doubled only where it could be read as part of an escape (before `u`, before another
 * backslash, before an escaped character), so ordinary text such as `C:\Users` or `"a\"b"` prints as it
 * is while the output still decodes to exactly one input (`\\` → `\`, `\uXXXX` → the character).
 */

export interface PrintableOptions {
  /** Keep `\n` (text shown over several lines). Default true; false escapes it for one-line fields. */
  readonly multiline?: boolean;
}

const UNSAFE =
  '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\u200e\\u200f\\u061c';
const ESCAPE_ALL = new RegExp(`[${UNSAFE}]|\\\\(?=[u\\\\${UNSAFE}]|$)`, 'g');
const ESCAPE_ALL_LINE = new RegExp(`[${UNSAFE}\\n]|\\\\(?=[u\\\\${UNSAFE}\\n]|$)`, 'g');
/** In JSON text: what `JSON.stringify` leaves raw (it already escapes C0 and `\\`). */
const JSON_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

const hex = (ch: string) => `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;

export function printable(text: string, options: PrintableOptions = {}): string {
  const pattern = options.multiline === false ? ESCAPE_ALL_LINE : ESCAPE_ALL;
  return text.replace(pattern, (ch) => (ch === '\\' ? '\\\\' : hex(ch)));
}

/** `value` with every string in it (object keys too) made printable, for formatting a whole record. */
export function printableDeep<T>(value: T, options: PrintableOptions = {}): T {
  if (typeof value === 'string') return printable(value, options) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => printableDeep(v, options)) as T;
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    // fromEntries defines own properties, so a `__proto__` key stays a key.
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [printable(k, options), printableDeep(v, options)]),
    ) as T;
  }
  return value;
}

/**
 * `JSON.stringify` whose text is also safe on a terminal: the characters it leaves raw become `\uXXXX`
 * escapes, which JSON reads back as the same characters (they only ever occur inside strings).
 */
export function printableJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(JSON_UNSAFE, hex);
}
