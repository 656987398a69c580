/**
 * `--zod mini` on the Petstore: a golden snapshot (test/golden/petstore-openapi-mini/, refreshed with
 * UPDATE_GOLDEN=1), the whole module type-checked with schemas.ts checked too (every
 * `z.ZodMiniType<X>` annotation proven), and the mini validators agreeing with the classic ones on
 * every fixture and on broken copies of them.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emitAll } from '../../generator/generate.js';
import { loadContracts } from '../../generator/parse/index.js';
import { repoRoot, typecheck } from '../types/typecheck.js';

const GOLDEN = path.join(repoRoot, 'test/golden/petstore-openapi-mini');
const update = process.env.UPDATE_GOLDEN === '1';
const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const tmp = mkdtempSync(path.join(tmpRoot, 'mini-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function emit(checkAll: boolean, zod: 'classic' | 'mini') {
  const cwd = process.cwd();
  process.chdir(repoRoot);
  try {
    const loaded = await loadContracts(['schemas/petstore.openapi.yaml']);
    const [folder] = emitAll(loaded.contracts, { runtime: 'package', cwd: repoRoot, checkAll, zod }).folders;
    if (!folder) throw new Error('no folder');
    return folder.files;
  } finally {
    process.chdir(cwd);
  }
}

describe('--zod mini (Petstore)', async () => {
  const files = await emit(false, 'mini');

  it('matches test/golden/petstore-openapi-mini/', () => {
    if (update) {
      rmSync(GOLDEN, { recursive: true, force: true });
      mkdirSync(GOLDEN, { recursive: true });
      for (const [rel, text] of files) writeFileSync(path.join(GOLDEN, rel), text);
    }
    expect(readdirSync(GOLDEN).sort()).toEqual([...files.keys()].sort());
    for (const [rel, text] of files) {
      expect(text, `${rel} differs from its golden file (UPDATE_GOLDEN=1 to accept)`).toBe(
        readFileSync(path.join(GOLDEN, rel), 'utf8'),
      );
    }
  });

  it("differs from the classic module in its schemas and validators.js's zod import only", async () => {
    const classic = await emit(false, 'classic');
    const mini = "import * as z from 'zod/mini';";
    for (const [rel, text] of files) {
      if (rel === 'validators.js')
        expect(text.replace(mini, "import { z } from 'zod';")).toBe(classic.get(rel));
      else if (rel === 'schemas.d.ts')
        expect(text.replace("import type * as z from 'zod/mini';", "import type { z } from 'zod';")).toBe(
          classic.get(rel)?.replaceAll('z.ZodType<', 'z.ZodMiniType<'),
        );
      else if (rel !== 'schemas.js') expect(text, rel).toBe(classic.get(rel));
    }
    expect(files.get('validators.js')).toContain(mini);
    expect(files.get('schemas.js')).toMatch(/^import \* as z from 'zod\/mini';$/m);
    expect(files.get('schemas.js')).not.toMatch(
      /\)\.(optional|nullable|min|max|regex|refine|and|catchall|gte|lte)\(/,
    );
  });

  it('type-checks with every file checked (no @ts-nocheck)', async () => {
    const checked = await emit(true, 'mini');
    const dir = path.join(tmp, 'checked');
    mkdirSync(dir, { recursive: true });
    for (const [rel, text] of checked) writeFileSync(path.join(dir, rel), text);
    expect(checked.get('schemas.ts')).not.toContain('@ts-nocheck');
    // validators.ts is JavaScript under @ts-nocheck; the rest is checked.
    const names = [...checked.keys()].filter((rel) => rel.endsWith('.ts')).map((rel) => path.join(dir, rel));
    expect(typecheck(names).filter((d) => !d.startsWith('runtime/'))).toEqual([]);
  }, 300_000);

  it('accepts every fixture and rejects the same broken copies as the classic schemas', async () => {
    const load = async (zod: 'classic' | 'mini') => {
      const dir = path.join(tmp, zod);
      mkdirSync(dir, { recursive: true });
      for (const [rel, text] of await emit(true, zod)) writeFileSync(path.join(dir, rel), text);
      const schemas = (await import(path.join(dir, 'schemas.ts'))) as {
        eventSchemas: Record<string, { '~standard': { validate(v: unknown): { issues?: unknown[] } } }>;
      };
      const { fixtures } = (await import(path.join(dir, 'fixtures.ts'))) as {
        fixtures: Record<string, unknown>;
      };
      return { schemas: schemas.eventSchemas, fixtures };
    };
    const mini = await load('mini');
    const classic = await load('classic');
    const verdict = (s: (typeof mini)['schemas'][string] | undefined, v: unknown) =>
      s?.['~standard'].validate(v).issues === undefined;
    let compared = 0;
    for (const [event, fixture] of Object.entries(mini.fixtures)) {
      expect(verdict(mini.schemas[event], fixture), event).toBe(true);
      // Each top-level field dropped, nulled or stringified in turn.
      for (const key of Object.keys(fixture as object)) {
        for (const change of [undefined, null, 'x', 12.5, []]) {
          const broken = { ...(fixture as object), [key]: change };
          if (change === undefined) delete (broken as Record<string, unknown>)[key];
          expect(verdict(mini.schemas[event], broken), `${event} ${key}=${String(change)}`).toBe(
            verdict(classic.schemas[event], broken),
          );
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(50);
  }, 120_000);
});
