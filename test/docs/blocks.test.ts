import { describe, expect, it } from 'vitest';
import { extractBlocks } from './blocks.js';

const fence = '```';

describe('extractBlocks', () => {
  it('finds ts and typescript blocks, fragments and indented ones, with their Markdown line', () => {
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
      `  ${fence}typescript fragment`,
      '  receiver.node();',
      `  ${fence}`,
    ].join('\n');
    expect(extractBlocks('docs/x.md', md)).toEqual([
      { doc: 'docs/x.md', line: 3, kind: 'program', code: 'const a = 1;\n' },
      { doc: 'docs/x.md', line: 11, kind: 'fragment', code: 'receiver.node();\n' },
    ]);
  });

  it('refuses what would escape the test: unknown markers, JavaScript blocks, unclosed blocks', () => {
    expect(() => extractBlocks('a.md', `${fence}ts skip\nx\n${fence}\n`)).toThrow(
      /a\.md:1: unknown marker "skip"/,
    );
    expect(() => extractBlocks('a.md', `${fence}js\nx\n${fence}\n`)).toThrow(
      /a\.md:1: a `js` block is not tested/,
    );
    expect(() => extractBlocks('a.md', `${fence}ts\nx\n`)).toThrow(/never closed/);
  });
});
