/**
 * Runs (and type-checks) every ```ts block of docs/portal.md, so the documented example stays true.
 * Blocks are written under test/.tmp/ (inside the repo, so `zod` and `better-sqlite3` resolve);
 * `@gen-webhooks/runtime` resolves to the sources (vitest alias, tsconfig paths).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { repoRoot } from '../tools/helpers.js';

const blocks = [
  ...readFileSync(path.join(repoRoot, 'docs/portal.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g),
].map((m) => m[1] ?? '');
mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
const dir = mkdtempSync(path.join(repoRoot, 'test/.tmp/portal-docs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/portal.md examples', () => {
  it('has its example', () => {
    expect(blocks).toHaveLength(1);
  });

  it('runs: opening a link answers 200 with the strict, HttpOnly session cookie', async () => {
    const file = path.join(dir, 'example-1.ts');
    writeFileSync(file, blocks[0] as string);
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await import(pathToFileURL(file).href);
      expect(log.mock.calls[0]?.[0]).toBe(200);
      expect(log.mock.calls[0]?.[1]).toMatch(
        /^gw_portal=[\w-]+\.[\w-]+; Path=\/webhooks\/portal; Max-Age=3600; HttpOnly; SameSite=Strict; Secure$/,
      );
    } finally {
      log.mockRestore();
    }
  });

  it('type-checks', () => {
    const file = path.join(dir, 'typed-1.ts');
    writeFileSync(file, blocks[0] as string);
    const config = ts.getParsedCommandLineOfConfigFile(
      path.join(repoRoot, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    );
    if (!config) throw new Error('tsconfig did not parse');
    const program = ts.createProgram({ rootNames: [file], options: { ...config.options, noEmit: true } });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? path.basename(d.file.fileName) : ''} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      );
    expect(diagnostics).toEqual([]);
  }, 120_000);
});
