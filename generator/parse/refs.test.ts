import { describe, expect, it } from 'vitest';
import { fixture, generatorError } from '../../test/fixtures/specs/helpers.js';
import { loadContract } from './index.js';

describe('$ref resolution into model-local refs', async () => {
  const file = fixture('refs/root.yaml');
  const model = await loadContract(file);
  const created = model.events.find((e) => e.name === 'pet.created');
  if (!created) throw new Error('pet.created is missing');
  const properties = (created.payload.schema as { properties: Record<string, unknown> }).properties;

  it('resolves cross-file refs relative to the referring file and keeps names unique', () => {
    expect(properties.localPet).toEqual({ $ref: '#/schemas/Pet' });
    expect(properties.otherPet).toEqual({ $ref: '#/schemas/Pet_2' });
    expect(properties.pet).toEqual({ $ref: '#/schemas/Pet_3' });
    expect(model.schemas.Pet?.source).toBe(`${file}#/components/schemas/Pet`);
    expect(model.schemas.Pet_2?.source).toBe(fixture('refs/shared/components.yaml#/components/schemas/Pet'));
    expect(model.schemas.Pet_3).toEqual({
      schema: {
        type: 'object',
        required: ['id'],
        properties: {
          id: { type: 'integer' },
          owner: { $ref: '#/schemas/Owner' },
          tag: { $ref: '#/schemas/Tag' },
        },
      },
      source: fixture('refs/shared/pets.yaml#/Pet'),
    });
    expect(model.schemas.Tag?.source).toBe(fixture('refs/shared/components.yaml#/components/schemas/Tag'));
    expect(model.diagnostics.filter((d) => d.code === 'schema_renamed').map((d) => d.message)).toEqual([
      'schema "Pet" renamed to "Pet_2": the name is used by another schema',
      'schema "Pet" renamed to "Pet_3": the name is used by another schema',
    ]);
  });

  it('names a whole-file schema after the file and its $defs after their keys', () => {
    expect(properties.address).toEqual({ $ref: '#/schemas/address' });
    expect(model.schemas.address?.schema).toEqual({
      type: 'object',
      properties: { street: { type: 'string' }, country: { $ref: '#/schemas/Country' } },
    });
    expect(model.schemas.Country?.source).toBe(fixture('refs/shared/address.json#/$defs/Country'));
  });

  it('decodes ~0, ~1 and percent-encoding in fragments', () => {
    expect(model.schemas.a_b?.schema).toEqual({ type: 'string', const: 'slash' });
    expect(model.schemas.til_de?.schema).toEqual({ type: 'string', const: 'tilde' });
    expect(model.schemas.My_Pet?.schema).toEqual({ type: 'string', const: 'space' });
    expect(model.schemas['50_']?.schema).toEqual({ type: 'string', const: 'percent' });
    expect(model.schemas.a_b?.source).toBe(`${file}#/components/schemas/a~1b`);
  });

  it('ends recursion (self, mutual, through an unnamed part) in model-local refs', () => {
    expect(model.schemas.TreeNode?.schema).toEqual({
      type: 'object',
      properties: {
        value: { type: 'string' },
        children: { type: 'array', items: { $ref: '#/schemas/TreeNode' } },
      },
    });
    expect(model.schemas.Company?.schema).toMatchObject({
      properties: { employees: { items: { $ref: '#/schemas/Person' } } },
    });
    expect(model.schemas.Person?.schema).toMatchObject({
      properties: { employer: { $ref: '#/schemas/Company' } },
    });
    expect(properties.nested).toEqual({ type: 'object', properties: { again: { $ref: '#/schemas/inner' } } });
    expect(model.schemas.inner?.schema).toEqual(properties.nested);
    // The model is plain data: it serialises without cycles.
    expect(() => JSON.stringify(model)).not.toThrow();
  });

  it('keeps annotation siblings next to $ref and turns other siblings into allOf', () => {
    expect(properties.annotated).toEqual({ $ref: '#/schemas/Pet', description: 'The pet, again.' });
    expect(properties.constrained).toEqual({ allOf: [{ $ref: '#/schemas/Pet' }], required: ['name'] });
  });

  it('reads a path item from another file, resolving its refs relative to that file', () => {
    const removed = model.events.find((e) => e.name === 'pet.removed');
    expect(removed?.payload.schema).toEqual({ $ref: '#/schemas/Pet_3' });
    expect(removed?.source).toBe(fixture('refs/shared/path-items.yaml#/PetRemoved/post'));
  });

  it('only emits refs that point at existing schemas', () => {
    const refs = JSON.stringify(model).match(/"\$ref":"#\/schemas\/[^"]+"/g) ?? [];
    for (const ref of refs) expect(model.schemas).toHaveProperty([ref.slice(18, -1)]);
  });
});

describe('$ref errors', () => {
  it('a loop of pure refs is ref_cycle', async () => {
    const error = await generatorError(() => loadContract(fixture('refs/cycle.yaml')));
    expect(error.code).toBe('ref_cycle');
    expect(error.file).toBe(fixture('refs/cycle.yaml'));
    expect(error.pointer).toBe(
      '/webhooks/loop/post/requestBody/content/application~1json/schema/properties/a/$ref',
    );
  });

  it('a schema that is only a ref to itself is ref_cycle', async () => {
    const error = await generatorError(() => loadContract(fixture('refs/self.yaml')));
    expect(error.code).toBe('ref_cycle');
    expect(error.pointer).toBe('/webhooks/self/post/requestBody/content/application~1json/schema/$ref');
  });

  it('a missing file is ref_not_found naming the referring pointer and the target', async () => {
    const error = await generatorError(() => loadContract(fixture('refs/missing-file.yaml')));
    expect(error.code).toBe('ref_not_found');
    expect(error.file).toBe(fixture('refs/missing-file.yaml'));
    expect(error.pointer).toBe('/webhooks/missing/post/requestBody/content/application~1json/schema/$ref');
    expect(error.message).toContain(fixture('refs/shared/nope.yaml'));
  });

  it('a missing pointer is ref_not_found naming the missing node', async () => {
    const error = await generatorError(() => loadContract(fixture('refs/missing-pointer.yaml')));
    expect(error.code).toBe('ref_not_found');
    expect(error.pointer).toBe(
      '/webhooks/missing/post/requestBody/content/application~1json/schema/properties/pet/$ref',
    );
    expect(error.message).toContain('#/components/schemas/Pett');
    expect(error.expected).toContain('token 3');
  });

  it('remote refs are refused unless allowed, then fetched through the injected fetch', async () => {
    const file = fixture('refs/remote.yaml');
    const error = await generatorError(() => loadContract(file));
    expect(error.code).toBe('remote_ref_refused');
    expect(error.file).toBe(file);
    expect(error.pointer).toBe(
      '/webhooks/remote.event/post/requestBody/content/application~1json/schema/$ref',
    );
    expect(error.expected).toMatch(/allowRemoteRefs/);

    const fakeFetch = (async () =>
      new Response(JSON.stringify({ Event: { type: 'object', properties: { id: { type: 'string' } } } }), {
        headers: { 'content-type': 'application/json' },
      })) as typeof fetch;
    const model = await loadContract(file, { allowRemoteRefs: true, fetch: fakeFetch });
    expect(model.events[0]?.payload.schema).toEqual({ $ref: '#/schemas/Event' });
    expect(model.schemas.Event).toEqual({
      schema: { type: 'object', properties: { id: { type: 'string' } } },
      source: 'https://schemas.example.com/event.json#/Event',
    });
  });
});

describe('recursion without named schemas', () => {
  it('refers back to the first occurrence for refs to ancestors and self-nesting YAML aliases', async () => {
    const file = fixture('refs/alias-recursion.yaml');
    const model = await loadContract(file);
    const [x, y] = model.events;
    expect(x?.payload.schema).toEqual({
      type: 'object',
      properties: {
        a: { type: 'object', properties: { b: { $ref: '#/schemas/a' }, top: { $ref: '#/schemas/schema' } } },
      },
    });
    expect(model.schemas.a?.source).toBe(
      `${file}#/webhooks/x/post/requestBody/content/application~1json/schema/properties/a`,
    );
    expect(y?.payload.schema).toEqual({
      type: 'object',
      properties: {
        self: { $ref: '#/schemas/schema_2' },
        list: { type: 'array', items: { $ref: '#/schemas/schema_2' } },
      },
    });
    expect(model.schemas.schema_2?.schema).toEqual(y?.payload.schema);
    expect(() => JSON.stringify(model)).not.toThrow();
  });
});
