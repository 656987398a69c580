/**
 * GitHub's published webhooks description (@octokit/openapi-webhooks): generation succeeds, the
 * output compiles under tsc --strict, and every event's fixture validates against its generated zod
 * schema — except events whose schema no payload can satisfy, which must be reported as diagnostics.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { generate } from '../generator/generate.js';
import { checkContractLiteral, repoRoot, typecheck } from './types/typecheck.js';

const spec = createRequire(import.meta.url).resolve(
  '@octokit/openapi-webhooks/generated/api.github.com.json',
);
const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'github-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("GitHub's webhooks description", async () => {
  // The TypeScript form, which this file compiles (js-form.test.ts: the JavaScript form is the same code).
  const result = await generate({ inputs: [spec], out: dir, cwd: repoRoot, dataModules: 'ts' });
  const contract = result.contracts[0];
  const folder = path.join(dir, contract?.name ?? '');

  it('generates one module with every event', () => {
    expect(result.contracts).toHaveLength(1);
    expect(contract?.events.length).toBeGreaterThan(250);
    expect(contract?.events).toContain('issues.opened');
    expect(contract?.events).toContain('push');
    expect(contract?.files.map((f) => path.basename(f))).toEqual([
      'contract.ts',
      'fixtures.ts',
      'index.ts',
      'receiver.ts',
      'schemas.ts',
      'sender.ts',
      'types.ts',
      'validators.ts',
    ]);
    expect(contract?.model.selector).toEqual({
      kind: 'header',
      header: 'X-GitHub-Event',
      bodyField: 'action',
    });
  });

  it('compiles under tsc --strict', () => {
    // The contract literal is checked here too (the zod schemas are, for the busiest events, by
    // schema-zod-tsc.test.ts; checking all of them takes minutes).
    checkContractLiteral(folder);
    const diagnostics = typecheck([path.join(folder, 'index.ts')]).filter((d) => !d.startsWith('runtime/'));
    expect(diagnostics).toEqual([]);
  }, 600_000);

  it('has a fixture per event that passes its zod schema, or a diagnostic saying why not', async () => {
    const { eventSchemas } = (await import(pathToFileURL(path.join(folder, 'schemas.ts')).href)) as {
      eventSchemas: Record<string, z.ZodType>;
    };
    const { fixtures } = (await import(pathToFileURL(path.join(folder, 'fixtures.ts')).href)) as {
      fixtures: Record<string, unknown>;
    };
    const reported = new Set(
      result.diagnostics
        .filter((d) => d.code === 'fixture_not_valid')
        .map((d) => /event '([^']+)'/.exec(d.message)?.[1]),
    );
    const failing: string[] = [];
    for (const event of contract?.events ?? []) {
      const schema = eventSchemas[event];
      expect(schema, event).toBeDefined();
      if (!schema?.safeParse(fixtures[event]).success) failing.push(event);
    }
    expect(failing.sort()).toEqual([...reported].sort());
    // Today only the repository advisory events: GitHub declares `author`/`publisher` as
    // `type: ["null"]` next to `allOf: [simple-user]`, which no value satisfies.
    expect(failing.length).toBeLessThanOrEqual(3);
  }, 120_000);
});
