/** Where JSON Schema and the generated zod schemas disagree, the generator says so (#17). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emitAll } from '../generate.js';
import { loadContract } from './index.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'gen-webhooks-closed-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function write(
  name: string,
  webhooks: Record<string, unknown>,
  schemas: Record<string, unknown> = {},
): string {
  const file = path.join(tmp, name);
  const hooks = Object.fromEntries(
    Object.entries(webhooks).map(([key, schema]) => [
      key,
      { post: { requestBody: { content: { 'application/json': { schema } } } } },
    ]),
  );
  writeFileSync(
    file,
    JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'T', version: '1' },
      webhooks: hooks,
      components: { schemas },
    }),
  );
  return file;
}

describe('JSON Schema vs zod', () => {
  it('warns on allOf with a closed member that other members extend', async () => {
    const file = write(
      'closed.json',
      {
        'a.created': {
          allOf: [{ $ref: '#/components/schemas/Closed' }, { properties: { extra: { type: 'string' } } }],
        },
      },
      { Closed: { type: 'object', properties: { id: { type: 'string' } }, additionalProperties: false } },
    );
    const model = await loadContract(file);
    const warning = model.diagnostics.find((d) => d.code === 'closed_allof_member');
    expect(warning?.message).toContain('other members add extra');
    expect(warning?.pointer).toBe('/webhooks/a.created/post/requestBody/content/application~1json/schema');
    const open = await loadContract(
      write(
        'open.json',
        { 'a.created': { allOf: [{ $ref: '#/components/schemas/Open' }, { properties: { extra: {} } }] } },
        {
          Open: { type: 'object', properties: { id: { type: 'string' } } },
        },
      ),
    );
    expect(open.diagnostics.map((d) => d.code)).not.toContain('closed_allof_member');
  });

  it('warns when the fixture matches several oneOf branches ({} against open branches)', async () => {
    const file = write('oneof.json', {
      'b.created': {
        oneOf: [
          { type: 'object', properties: { a: { type: 'string' } } },
          { type: 'object', properties: { b: { type: 'string' } } },
          { type: 'object', required: ['c'], properties: { c: { type: 'string' } } },
        ],
      },
    });
    const { diagnostics } = emitAll([await loadContract(file)], { runtime: 'package', cwd: tmp });
    expect(diagnostics.find((d) => d.code === 'fixture_oneof_ambiguous')?.message).toContain(
      "event 'b.created': the synthesised payload matches several oneOf branches",
    );
  });
});
