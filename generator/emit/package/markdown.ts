/**
 * Contract text → Markdown that shows it literally. Descriptions in a contract are the provider's
 * text, not ours: a `<script>`, a `[link](javascript:…)`, a `|` that ends a table cell or a line
 * starting with `#` must not become markup in the README an npm registry renders.
 */

/** Characters that start markup anywhere in a line (links, emphasis, code, HTML, entities, tables). */
const INLINE = /[\\`*_[\]<>|~&]/g;

/** Plain text inside a line, escaped: newlines become spaces, markup characters are backslashed. */
export function inline(value: string): string {
  return value
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .trim()
    .replace(INLINE, (c) => `\\${c}`);
}

/** A paragraph (or a table cell) of plain text: `inline`, and nothing at its start reads as a block. */
export function text(value: string): string {
  // Block markup is only recognised at the start of a line: headings, quotes, lists, rules, setext.
  return inline(value).replace(/^([#>+=-]|\d+[.)])/, (m) => `\\${m}`);
}

/** A code span that shows `value` verbatim, whatever backticks it contains (CommonMark 6.1). */
export function code(value: string): string {
  const line = value.replace(/[\r\n]+/g, ' ');
  const runs = line.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = line.startsWith('`') || line.endsWith('`') || /^ .* $/.test(line) ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}

/** A fenced code block: the fence is longer than any backtick run inside, so nothing escapes it. */
export function fence(info: string, body: string): string {
  const runs = body.match(/`{3,}/g) ?? [];
  const ticks = '`'.repeat(Math.max(3, ...runs.map((r) => r.length + 1)));
  return `${ticks}${info}\n${body.replace(/\n?$/, '\n')}${ticks}`;
}

/** A GFM table cell: `|` is escaped even inside code spans, where backslashes are otherwise literal. */
export function cell(markdown: string): string {
  return markdown.replace(/(?<!\\)\|/g, '\\|');
}
