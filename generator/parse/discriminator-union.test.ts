/** OpenAPI 3.0 discriminator inheritance typed as the union of its subtypes (#17). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixture } from '../../test/fixtures/specs/helpers.js';
import { repoRoot, typecheck } from '../../test/types/typecheck.js';
import { emitAll } from '../generate.js';
import { writeOutput } from '../write.js';
import { loadContract } from './index.js';

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'discriminator-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('discriminator with subtypes that allOf the base', () => {
  it('types the base as one of its subtypes, each pinned to its value', async () => {
    const model = await loadContract(fixture('openapi30/pets-discriminator.yaml'));
    expect(model.schemas.Pet?.schema).toMatchObject({
      anyOf: [
        { allOf: [{ $ref: '#/schemas/Cat' }, { properties: { petType: { const: 'cat' } } }] },
        { allOf: [{ $ref: '#/schemas/Dog' }, { properties: { petType: { const: 'dog' } } }] },
      ],
    });
    expect(model.schemas.Cat?.schema).toMatchObject({ allOf: [{ $ref: '#/schemas/PetBase' }, {}] });
    expect(model.schemas.PetBase?.schema).toMatchObject({ required: ['name', 'petType'] });
    expect(model.diagnostics.map((d) => d.code)).toContain('discriminator_union');
  });

  it('keeps the subtype fields: the fixture (a Cat) compiles without @ts-nocheck and a handler sees huntingSkill', async () => {
    const model = await loadContract(fixture('openapi30/pets-discriminator.yaml'));
    const { folders } = emitAll([model], { runtime: 'package', cwd: repoRoot, checkAll: true });
    writeOutput(dir, folders);
    const folder = path.join(dir, model.name);
    writeFileSync(
      path.join(folder, 'consumer.ts'),
      `import type { Events } from './types.js';
export function skill(data: Events['pet.adopted']): string | number {
  return data.petType === 'cat' ? data.huntingSkill : data.packSize;
}
`,
    );
    const diagnostics = typecheck([
      path.join(folder, 'fixtures.ts'),
      path.join(folder, 'consumer.ts'),
    ]).filter((d) => !d.startsWith('runtime/'));
    expect(diagnostics).toEqual([]);
  }, 120_000);
});
