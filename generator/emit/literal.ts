/**
 * TypeScript source text for plain JSON data (descriptor objects, fixtures): single quotes, 2-space
 * indent, trailing commas on multi-line literals, keys quoted only when they are not identifiers.
 * Output is a pure function of the value, so emitted files are byte-stable.
 */
import {
  blockCommentLine,
  blockCommentLines,
  propertyKey,
  quotedKey,
  stringLiteral,
} from '../schema/escape.js';

/** A single-quoted string literal. */
export const quote = stringLiteral;

/** An object literal key for an event name: quoted, `['__proto__']` for `__proto__`. */
export const key = quotedKey;

/** Contract text (a title) inside a one-line block comment. */
export const commentText = blockCommentLine;

function numberLiteral(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`cannot emit non-finite number ${value}`);
  return Object.is(value, -0) ? '0' : String(value);
}

/**
 * Serialises JSON-compatible data. `indent` is the indentation of the line the literal starts on;
 * short arrays/objects of scalars stay on one line when they fit in `width` columns.
 */
export function literal(value: unknown, indent = '', width = 100): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return numberLiteral(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      throw new TypeError(`cannot emit a ${typeof value} as a literal`);
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item) => literal(item, inner, width));
    const flat = `[${items.join(', ')}]`;
    if (!flat.includes('\n') && indent.length + flat.length <= width) return flat;
    return `[\n${items.map((item) => `${inner}${item},\n`).join('')}${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  const parts = entries.map(([k, v]) => `${propertyKey(k)}: ${literal(v, inner, width)}`);
  const flat = `{ ${parts.join(', ')} }`;
  if (!flat.includes('\n') && indent.length + flat.length <= width) return flat;
  return `{\n${parts.map((part) => `${inner}${part},\n`).join('')}${indent}}`;
}

/** A JSDoc block for `text` at `indent`, or '' when there is nothing to say. */
export function docComment(text: string | undefined, indent = '', extra: readonly string[] = []): string {
  const lines = [...(text?.trim() ? blockCommentLines(text.trim()) : []), ...extra].map((line) =>
    line.trimEnd(),
  );
  if (lines.length === 0) return '';
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => (line ? `${indent} * ${line}\n` : `${indent} *\n`)).join('')}${indent} */\n`;
}
