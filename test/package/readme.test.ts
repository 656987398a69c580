/**
 * The SDK README shows contract text literally: rendered by a GFM renderer (marked), a contract's
 * HTML, links, images, headings and table-breaking pipes stay text, and examples stay inside their
 * code blocks whatever backticks they contain.
 */
import path from 'node:path';
import { marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { pickFixture } from '../../generator/emit/fixtures-file.js';
import { code, fence, inline, text } from '../../generator/emit/package/markdown.js';
import { emitReadme } from '../../generator/emit/package/readme.js';
import { loadContract } from '../../generator/parse/index.js';
import { repoRoot } from '../types/typecheck.js';

async function readme(file: string, license = 'MIT'): Promise<string> {
  const model = await loadContract(file);
  const fixtures = new Map(model.events.map((e) => [e.name, pickFixture(model, e, []).value]));
  return emitReadme({
    model,
    pkg: { name: '@acme/hooks', version: '1.0.0', description: 'Hooks <b>for</b> you', license },
    fixtures,
    generatorVersion: '0.1.0',
    source: 'hostile.openapi.yaml',
  });
}

describe('SDK README', () => {
  it('renders hostile contract text as text', async () => {
    const md = await readme(path.join(repoRoot, 'test/package/fixtures/hostile.openapi.yaml'));
    const html = await marked.parse(md, { gfm: true });
    for (const markup of ['<script', '<img', '<b>', '<strong>', '<blockquote>', '<ol>']) {
      expect(html, markup).not.toContain(markup);
    }
    // Links: ours, and GFM's autolinks of http(s) URLs written in the contract text, which show
    // their own address; never a `javascript:` one or a link text hiding its target.
    for (const [, href, label] of html.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)) {
      if (href === 'LICENSE') continue;
      expect(href).toMatch(/^https:\/\/evil\.example/);
      expect(label?.startsWith('https://evil.example')).toBe(true);
    }
    expect(html).not.toMatch(/href="(javascript|data):/);
    // Our headings only: the title, sections, frameworks, the one event.
    expect(html.match(/<h1>/g)).toHaveLength(1);
    expect(html).toContain('# Not a heading');
    expect(html).toContain('[click](javascript:alert(1))');
    // The event's fields table keeps its 3 rows and 4 columns despite the pipes.
    const table = /<table>[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    expect(table.match(/<tr>/g)).toHaveLength(4);
    expect(table.match(/<td>/g)).toHaveLength(12);
    expect(table).toContain('<code>weird|name</code>');
    // The example's backticks and closing tags stay inside the code block.
    expect(html).toContain('&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;');
    expect(html).toContain('`````');
  });

  it('names a license it has no text for', async () => {
    const md = await readme(path.join(repoRoot, 'schemas/petstore.openapi.yaml'), 'Apache-2.0');
    expect(md).toMatch(/## License\n\nApache-2\.0\. No LICENSE file was generated/);
    expect(await readme(path.join(repoRoot, 'schemas/petstore.openapi.yaml'))).toContain(
      'MIT: see [LICENSE](LICENSE).',
    );
  });
});

describe('markdown escaping', () => {
  it('inline and text', () => {
    expect(inline('a *b* _c_ [d](e) <f> `g` | h & i ~j~')).toBe(
      'a \\*b\\* \\_c\\_ \\[d\\](e) \\<f\\> \\`g\\` \\| h \\& i \\~j\\~',
    );
    expect(text('# h')).toBe('\\# h');
    expect(text('1. x')).toBe('\\1. x');
    expect(text('- x\n- y')).toBe('\\- x - y');
    expect(inline('1.0.0')).toBe('1.0.0');
  });

  it('code spans and fences hold any backticks', async () => {
    expect(code('a`b')).toBe('``a`b``');
    expect(code('`x`')).toBe('`` `x` ``');
    expect(await marked.parseInline(code('``x`` and `y`'))).toBe('<code>``x`` and `y`</code>');
    expect(fence('json', '"```"')).toBe('````json\n"```"\n````');
    const html = await marked.parse(fence('', 'a\n````\nb'));
    expect(html).toBe('<pre><code>a\n````\nb\n</code></pre>\n');
  });
});
