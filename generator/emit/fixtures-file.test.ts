/**
 * fixtures.ts says when it could not do its job: a schema nothing satisfies gets a best effort marked
 * as not validating and a `fixture_not_valid` warning; an example that does not validate is replaced
 * by a synthesised payload with an `invalid_example` warning.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadContract } from '../parse/index.js';
import { emitContract } from './index.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-fixtures-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const hook = (schema: Record<string, unknown>) => ({
  post: {
    requestBody: { content: { 'application/json': { schema } } },
    responses: { '200': { description: 'ok' } },
  },
});

async function emit(webhooks: Record<string, unknown>) {
  const file = path.join(tmp, `f${Object.keys(webhooks).join('-')}.json`);
  writeFileSync(file, JSON.stringify({ openapi: '3.1.0', info: { title: 'F', version: '1' }, webhooks }));
  const model = await loadContract(file);
  const out = emitContract(model, {
    version: '0.0.0',
    source: 'f.json',
    runtimeImport: '@gen-webhooks/runtime',
  });
  return { fixtures: out.files.get('fixtures.ts') ?? '', diagnostics: out.diagnostics };
}

describe('fixtures.ts diagnostics', () => {
  it('an unsatisfiable schema: a marked best effort and fixture_not_valid', async () => {
    const { fixtures, diagnostics } = await emit({
      impossible: hook({
        type: 'object',
        required: ['code'],
        properties: { code: { type: 'string', minLength: 5, maxLength: 2 } },
      }),
    });
    expect(diagnostics.map((d) => [d.code, d.message])).toContainEqual([
      'fixture_not_valid',
      "event 'impossible': could not synthesise a payload that satisfies its schema",
    ]);
    expect(fixtures).toContain(
      '// No valid payload exists for this schema; this best effort does not validate.',
    );
    expect(fixtures).toContain("as unknown as Events['impossible']");
  });

  it('an example that does not validate: synthesised instead, with invalid_example', async () => {
    const { fixtures, diagnostics } = await emit({
      counted: hook({
        type: 'object',
        required: ['count'],
        properties: { count: { type: 'integer', minimum: 1 } },
        examples: [{ count: -4 }],
      }),
    });
    expect(diagnostics.map((d) => d.code)).toContain('invalid_example');
    expect(diagnostics.map((d) => d.code)).not.toContain('fixture_not_valid');
    expect(fixtures).not.toContain('-4');
    expect(fixtures).toMatch(/'counted': \{ count: \d+ \}/);
  });
});
