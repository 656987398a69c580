import { describe, expect, it } from 'vitest';
import { extractBlocks } from './blocks.js';

const fence = '```';

describe('extractBlocks', () => {
  it('finds ts and typescript blocks, indented ones and named modules, with their Markdown line', () => {
    const md = [
      '# Guide',
      `${fence}ts`,
      'const a = 1;',
      fence,
      `${fence}sh`,
      'npm test',
      fence,
      '- item',
      '',
      `  ${fence}typescript`,
      '  // webhooks.ts — the receiver',
      '  export const b = 2;',
      `  ${fence}`,
      `${fence}ts`,
      '// app/route.ts is a comment, not a module name',
      fence,
    ].join('\n');
    expect(extractBlocks('docs/x.md', md)).toEqual([
      { doc: 'docs/x.md', line: 3, code: 'const a = 1;\n' },
      {
        doc: 'docs/x.md',
        line: 11,
        file: 'webhooks.ts',
        code: '// webhooks.ts — the receiver\nexport const b = 2;\n',
      },
      { doc: 'docs/x.md', line: 15, code: '// app/route.ts is a comment, not a module name\n' },
    ]);
  });

  it('refuses what would escape the test: any marker, JavaScript blocks, unclosed blocks', () => {
    expect(() => extractBlocks('a.md', `${fence}ts fragment\nx\n${fence}\n`)).toThrow(
      /a\.md:1: unknown marker "fragment"/,
    );
    expect(() => extractBlocks('a.md', `${fence}ts skip\nx\n${fence}\n`)).toThrow(
      /a\.md:1: unknown marker "skip"/,
    );
    expect(() => extractBlocks('a.md', `${fence}js\nx\n${fence}\n`)).toThrow(
      /a\.md:1: a `js` block is not tested/,
    );
    expect(() => extractBlocks('a.md', `${fence}ts\nx\n`)).toThrow(/never closed/);
  });
});
