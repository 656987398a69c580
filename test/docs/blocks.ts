/**
 * Finds the TypeScript code blocks of a Markdown file. A block is ```ts or ```typescript, with no
 * marker: every block is type-checked and run, so a marker that would exempt one (and any JavaScript
 * block) is an error rather than a block that silently escapes the test. A block whose first line
 * names a file (`// webhooks.ts — the receiver …`) is also that module, for the blocks that import it.
 */
export interface DocBlock {
  /** The Markdown file, relative to the repository (`docs/sender.md`). */
  readonly doc: string;
  /** 1-based line of the first code line in the Markdown file. */
  readonly line: number;
  /** The module name its first line gives (`webhooks.ts`), if any. */
  readonly file?: string;
  readonly code: string;
}

const OPEN = /^( *)(`{3,})\s*([^`]*)$/;
const NAMED = /^\/\/ ([\w-]+(?:\.[\w-]+)*\.ts)(?:\s|$)/;
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
      throw new Error(`${doc}:${i + 1}: a \`${lang}\` block is not tested; write it as \`ts\``);
    }
    if (TS.has(language)) {
      if (markers.length > 0) {
        throw new Error(
          `${doc}:${i + 1}: unknown marker "${markers.join(' ')}" (every \`ts\` block is type-checked and run)`,
        );
      }
      const file = NAMED.exec(body[0] ?? '')?.[1];
      blocks.push({
        doc,
        line: i + 2,
        ...(file === undefined ? {} : { file }),
        code: `${body.join('\n')}\n`,
      });
    }
    i = end;
  }
  return blocks;
}
