/**
 * Finds the TypeScript code blocks of a Markdown file. A block is ```ts or ```typescript; the info
 * string may add one marker, `fragment` (a snippet that needs names from the fragment prelude: it is
 * type-checked, not run). Any other marker, and any JavaScript block, is an error rather than a block
 * that silently escapes the test.
 */
export interface DocBlock {
  /** The Markdown file, relative to the repository (`docs/sender.md`). */
  readonly doc: string;
  /** 1-based line of the first code line in the Markdown file. */
  readonly line: number;
  readonly kind: 'program' | 'fragment';
  readonly code: string;
}

const OPEN = /^( *)(`{3,})\s*([^`]*)$/;
const TS = new Set(['ts', 'typescript']);
const JS = new Set(['js', 'javascript', 'mjs', 'cjs', 'jsx', 'tsx', 'mts', 'cts']);

export function extractBlocks(doc: string, markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPEN.exec(lines[i] ?? '');
    if (!open) continue;
    const indent = open[1]?.length ?? 0;
    const fence = open[2] ?? '```';
    const [lang = '', ...markers] = (open[3] ?? '').trim().split(/\s+/);
    const close = new RegExp(`^ *${fence}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end] ?? '')) end++;
    if (end === lines.length) throw new Error(`${doc}:${i + 1}: code block never closed`);
    const body = lines
      .slice(i + 1, end)
      .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)));
    const language = lang.toLowerCase();
    if (JS.has(language)) {
      throw new Error(
        `${doc}:${i + 1}: a \`${lang}\` block is not tested; write it as \`ts\` (or \`ts fragment\`)`,
      );
    }
    if (TS.has(language)) {
      const unknown = markers.filter((m) => m !== 'fragment');
      if (unknown.length > 0 || markers.length > 1) {
        throw new Error(
          `${doc}:${i + 1}: unknown marker "${markers.join(' ')}" (only \`fragment\` is known)`,
        );
      }
      blocks.push({
        doc,
        line: i + 2,
        kind: markers[0] === 'fragment' ? 'fragment' : 'program',
        code: `${body.join('\n')}\n`,
      });
    }
    i = end;
  }
  return blocks;
}
