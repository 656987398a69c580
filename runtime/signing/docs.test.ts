/**
 * Runs every ```ts block of docs/runtime-signing.md, so the documented examples stay true. Each block is
 * written to a temp file and imported; `@gen-webhooks/runtime` resolves to the sources (vitest alias).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const docPath = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../docs/runtime-signing.md');
const blocks = existsSync(docPath)
  ? [...readFileSync(docPath, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '')
  : [];
const dir = mkdtempSync(join(tmpdir(), 'gen-webhooks-docs-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/runtime-signing.md examples', () => {
  it('has examples', () => {
    expect(blocks.length).toBeGreaterThan(5);
  });

  it.each(blocks.map((code, i) => [i + 1, code] as const))('example %i runs', async (i, code) => {
    const file = join(dir, `example-${i}.ts`);
    writeFileSync(file, code);
    await import(file);
  });
});
