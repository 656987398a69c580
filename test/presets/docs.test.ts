/**
 * Runs every ```ts block of docs/presets.md, so the documented examples stay true. Blocks are written
 * under test/.tmp/<unique>/generated/ (inside the repo so `zod`, `hono` and `better-sqlite3` resolve;
 * ignored by git and biome) and imported; `@gen-webhooks/runtime` resolves to the sources (vitest alias).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const docPath = path.join(repoRoot, 'docs/presets.md');
const blocks = existsSync(docPath)
  ? [...readFileSync(docPath, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '')
  : [];
mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
const dir = mkdtempSync(path.join(repoRoot, 'test/.tmp/presets-docs-'));
const out = path.join(dir, 'generated');
mkdirSync(out);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs/presets.md examples', () => {
  it('has one example per original provider, one for handshakes and one for Plaid', () => {
    expect(blocks.length).toBe(9);
  });

  it.each(blocks.map((code, i) => [i + 1, code] as const))('example %i runs', async (i, code) => {
    const file = path.join(out, `example-${i}.ts`);
    writeFileSync(file, code);
    await import(pathToFileURL(file).href);
  });

  it('type-checks (handlers see the typed payloads the prose promises)', () => {
    const files = blocks.map((code, i) => {
      const file = path.join(out, `typed-${i + 1}.ts`);
      writeFileSync(file, code);
      return file;
    });
    const configFile = path.join(out, 'tsconfig.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        extends: path.join(repoRoot, 'tsconfig.json'),
        compilerOptions: { noEmit: true },
        include: [],
        files,
      }),
    );
    const parsed = ts.getParsedCommandLineOfConfigFile(
      configFile,
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
          throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
        },
      },
    );
    if (parsed === undefined) throw new Error('tsconfig did not parse');
    expect(parsed.fileNames).toHaveLength(blocks.length);
    const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const where = diagnostic.file
        ? `${path.basename(diagnostic.file.fileName)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}`
        : '';
      return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
    expect(diagnostics).toEqual([]);
  }, 120_000);
});
