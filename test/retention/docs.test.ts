/**
 * Runs every ```ts block of docs/retention.md (under test/.tmp/, so better-sqlite3 resolves;
 * `@gen-webhooks/runtime` through the vitest alias), so the documented schedule stays true.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { repoRoot } from '../tools/helpers.js';

const blocks = [
  ...readFileSync(path.join(repoRoot, 'docs/retention.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g),
].map((m) => m[1] ?? '');
mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
const dir = mkdtempSync(path.join(repoRoot, 'test/.tmp/retention-docs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/retention.md examples', () => {
  it('has its example', () => {
    expect(blocks).toHaveLength(1);
  });

  it.each(blocks.map((code, i) => [i + 1, code] as const))('example %i runs', async (i, code) => {
    const file = path.join(dir, `example-${i}.ts`);
    writeFileSync(file, code);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const info = vi.spyOn(console, 'info').mockImplementation(() => {});
    try {
      await import(pathToFileURL(file).href);
      // The on-demand run found an empty outbox and store.
      expect(log).toHaveBeenCalledWith(0, 0);
      expect(info).toHaveBeenCalledWith(expect.objectContaining({ keys: 0 }), 'retention: run finished');
    } finally {
      log.mockRestore();
      info.mockRestore();
    }
  });
});
