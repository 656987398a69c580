/**
 * Leaf schemas written thousands of times in a large schemas.ts (`z.string()` 3 183 times in
 * GitHub's, `z.number().refine(Number.isInteger, …)` 948 times) are built once, as module consts, and
 * referenced by name. zod schemas are immutable — every method returns a new schema — so sharing
 * one instance changes no validation; it saves the objects at import, and the text every consumer's
 * tsc parses (GitHub: 566 → 503 KB, about a tenth of a receiver consumer's check time).
 *
 * A textual pass over the renderers' output, so it must never touch a leaf's spelling inside a
 * string, a regular expression or a comment: the scanner skips those (regex literals are
 * recognised where the renderers write them, as the first argument of a call).
 */

import { URI_SCHEMA } from '../schema/zod.js';
import { URI_SCHEMA_MINI } from '../schema/zod-mini.js';

/** Expression → const name, longest first (a longer leaf may start with a shorter one). */
const LEAVES: Readonly<Record<'classic' | 'mini', ReadonlyArray<readonly [string, string]>>> = {
  classic: [
    [URI_SCHEMA, 'zUri'],
    ["z.number().refine(Number.isInteger, 'Expected an integer')", 'zInteger'],
    ['z.email({ pattern: z.regexes.rfc5322Email })', 'zEmail'],
    ['z.iso.datetime({ offset: true })', 'zDateTime'],
    ['z.iso.date()', 'zDate'],
    ['z.boolean()', 'zBoolean'],
    ['z.unknown()', 'zUnknown'],
    ['z.number()', 'zNumber'],
    ['z.string()', 'zString'],
    ['z.guid()', 'zGuid'],
    ['z.null()', 'zNull'],
  ],
  mini: [
    [URI_SCHEMA_MINI, 'zUri'],
    ["z.number().check(z.refine(Number.isInteger, 'Expected an integer'))", 'zInteger'],
    ['z.email({ pattern: z.regexes.rfc5322Email })', 'zEmail'],
    ['z.iso.datetime({ offset: true })', 'zDateTime'],
    ['z.iso.date()', 'zDate'],
    ['z.boolean()', 'zBoolean'],
    ['z.unknown()', 'zUnknown'],
    ['z.number()', 'zNumber'],
    ['z.string()', 'zString'],
    ['z.guid()', 'zGuid'],
    ['z.null()', 'zNull'],
  ],
};

/** Uses fewer than this keep their inline spelling (a const for two uses only adds text)… */
const MIN_USES = 3;
/** …unless the leaf is long (the `uri` regex): then a second use already pays for the const. */
const LONG_LEAF = 40;

const IDENT = /[A-Za-z0-9_$]/;

/** End index (exclusive) of the string literal starting at `i` (its quote). */
function skipString(text: string, i: number): number {
  const quote = text[i];
  let j = i + 1;
  while (j < text.length && text[j] !== quote) j += text[j] === '\\' ? 2 : 1;
  return j + 1;
}

/** End index (exclusive) of the regex literal starting at `i` (its `/`), flags included. */
function skipRegex(text: string, i: number): number {
  let j = i + 1;
  let inClass = false;
  while (j < text.length) {
    const c = text[j];
    if (c === '\\') j += 2;
    else {
      if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) break;
      j += 1;
    }
  }
  j += 1;
  while (j < text.length && /[a-z]/.test(text[j] ?? '')) j += 1;
  return j;
}

/** The last non-space character before `i`. */
function previous(text: string, i: number): string {
  let j = i - 1;
  while (j >= 0 && /\s/.test(text[j] ?? '')) j -= 1;
  return j < 0 ? '' : (text[j] ?? '');
}

/** Counts (or replaces) leaf occurrences outside strings, regexes and comments. */
function scan(text: string, leaves: ReadonlyArray<readonly [string, string]>, replace: ReadonlySet<string>) {
  const uses = new Map<string, number>();
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? '';
    let end = i + 1;
    if (c === "'" || c === '"' || c === '`') end = skipString(text, i);
    else if (c === '/' && text[i + 1] === '/')
      end = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
    else if (c === '/' && text[i + 1] === '*')
      end = text.indexOf('*/', i + 2) < 0 ? text.length : text.indexOf('*/', i + 2) + 2;
    else if (c === '/' && (previous(text, i) === '(' || previous(text, i) === ',')) end = skipRegex(text, i);
    else if (c === 'z' && !IDENT.test(text[i - 1] ?? '') && text[i - 1] !== '.') {
      const leaf = leaves.find(
        ([expr]) => text.startsWith(expr, i) && !IDENT.test(text[i + expr.length] ?? ''),
      );
      if (leaf) {
        uses.set(leaf[1], (uses.get(leaf[1]) ?? 0) + 1);
        out += replace.has(leaf[1]) ? leaf[1] : leaf[0];
        i += leaf[0].length;
        continue;
      }
    }
    out += text.slice(i, end);
    i = end;
  }
  return { uses, out };
}

/**
 * `body` with its frequent leaves replaced by consts, and the declarations of those consts (in
 * LEAVES order, to put before the first use).
 */
export function shareLeaves(body: string, zod: 'classic' | 'mini'): { body: string; declarations: string } {
  const leaves = LEAVES[zod];
  const { uses } = scan(body, leaves, new Set());
  const shared = leaves.filter(
    ([expr, name]) => (uses.get(name) ?? 0) >= (expr.length > LONG_LEAF ? 2 : MIN_USES),
  );
  if (shared.length === 0) return { body, declarations: '' };
  const names = new Set(shared.map(([, name]) => name));
  const declarations = shared.map(([expr, name]) => `const ${name} = ${expr};\n`).join('');
  return {
    body: scan(body, leaves, names).out,
    declarations: `// Leaf schemas used throughout, built once: zod schemas are immutable, so sharing them is safe.\n${declarations}`,
  };
}
