/**
 * JSDoc blocks from schema annotations (title, description, deprecated, default). Text goes through
 * escape.ts, so a description can never close the comment early (`*\/`).
 *
 * `format` is added to a comment the property has anyway, never the reason for one: every JSDoc block
 * costs the user's tsc a parse of its own, whatever its length, and GitHub's 2,200 `@format uri`-only
 * comments were a fifth of the time an editor spends on its types.ts.
 */
import { blockCommentLine, blockCommentLines } from './escape.js';
import type { Doc } from './ir.js';

/** `default` values are documented, never applied: validators must not rewrite received payloads. */
function defaultText(value: unknown): string | undefined {
  const json = JSON.stringify(value);
  if (json === undefined) return undefined;
  return json.length > 200 ? `${json.slice(0, 197)}...` : json;
}

/** The comment lines for `doc` (without delimiters), in a stable order. */
export function docLines(doc: Doc): string[] {
  const lines: string[] = [];
  if (doc.title) lines.push(...blockCommentLines(doc.title));
  if (doc.description && doc.description !== doc.title) {
    if (lines.length > 0) lines.push('');
    lines.push(...blockCommentLines(doc.description.trim()));
  }
  const tags: string[] = [];
  if (doc.default !== undefined) {
    const text = defaultText(doc.default.value);
    if (text !== undefined) tags.push(`@default ${blockCommentLine(text)}`);
  }
  if (doc.deprecated) tags.push('@deprecated');
  if (doc.format && lines.length + tags.length > 0) lines.push(`@format ${blockCommentLine(doc.format)}`);
  return [...lines, ...tags].map((line) => line.replace(/\s+$/, ''));
}

/** A JSDoc block indented by `indent`, ending with a newline; '' when there is nothing to say. */
export function renderDoc(doc: Doc, indent: string): string {
  const lines = docLines(doc);
  if (lines.length === 0) return '';
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => (line === '' ? `${indent} *` : `${indent} * ${line}`)).join('\n')}\n${indent} */\n`;
}
