/**
 * Type-checks every ```ts block of README.md against the real runtime and a freshly generated
 * Petstore module, so the README's examples cannot drift from the API. Blocks may use a few free
 * names (`req`, `res`, `rawBody`, `fulfil`) declared by a prelude, as a reader's code would have them.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generate } from '../generator/index.js';
import { repoRoot, typecheck } from './types/typecheck.js';

const blocks = [
  ...readFileSync(path.join(repoRoot, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g),
].map((match) => match[1] ?? '');
mkdirSync(path.join(repoRoot, 'test/.tmp'), { recursive: true });
const dir = mkdtempSync(path.join(repoRoot, 'test/.tmp/readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const prelude = `
declare const req: import('node:http').IncomingMessage;
declare const res: import('node:http').ServerResponse;
declare const rawBody: Buffer;
declare function fulfil(paymentIntentId: string): Promise<void>;
`;

describe('README examples', () => {
  it('has examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
  });

  it('type-check against the runtime and a generated Petstore module', async () => {
    await generate({
      inputs: [path.join(repoRoot, 'schemas/petstore.openapi.yaml')],
      out: path.join(dir, 'generated'),
    });
    const files = blocks.map((code, i) => {
      const file = path.join(dir, `example-${i + 1}.ts`);
      writeFileSync(file, `${prelude}\n${code}\nexport {};\n`);
      return file;
    });
    expect(typecheck(files)).toEqual([]);
  }, 180_000);
});
