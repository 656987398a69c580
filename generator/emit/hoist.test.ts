import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContractModel, EventModel, JsonSchema } from '../model.js';
import { hoistSharedSchemas } from './hoist.js';

const user = {
  title: 'User',
  type: 'object',
  required: ['id', 'login'],
  properties: {
    id: { type: 'integer' },
    login: { type: 'string' },
    avatar_url: { type: 'string', format: 'uri' },
    site_admin: { type: 'boolean' },
  },
};

function event(name: string, schema: JsonSchema): EventModel {
  return {
    name,
    payload: { schema, source: `spec.yaml#/webhooks/${name}` },
    examples: [],
    source: 'spec.yaml',
  };
}

function model(events: EventModel[], schemas: ContractModel['schemas'] = {}): ContractModel {
  return {
    name: 'spec',
    title: 'Spec',
    version: '1',
    format: 'openapi-3.1',
    file: 'spec.yaml',
    events,
    schemas,
    signature: { kind: 'standard-webhooks' },
    envelope: { kind: 'envelope' },
    selector: { kind: 'envelope-type' },
    diagnostics: [],
  };
}

const object = (properties: Record<string, JsonSchema>) => ({ type: 'object', properties });

/** Replaces refs to schemas `original` did not have by their definitions: the hoisted model, undone. */
function expand(hoisted: ContractModel, original: ContractModel): { schemas: unknown; events: unknown } {
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    if (typeof value !== 'object' || value === null) return value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && Object.keys(value).length === 1) {
      const key = ref.slice('#/schemas/'.length);
      if (!Object.hasOwn(original.schemas, key)) return inline(hoisted.schemas[key]?.schema);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inline(v)]));
  };
  return {
    schemas: Object.fromEntries(
      Object.keys(original.schemas).map((key) => [key, inline(hoisted.schemas[key]?.schema)]),
    ),
    events: hoisted.events.map((e) => inline(e.payload.schema)),
  };
}

describe('hoistSharedSchemas', () => {
  it('declares a repeated inline object once, named by its title, where it first occurs', () => {
    const input = model([
      event('issue.opened', object({ sender: user, assignee: user })),
      event('star.created', object({ sender: user })),
    ]);
    const out = hoistSharedSchemas(input);
    expect(out.schemas.User).toEqual({
      schema: user,
      source: 'spec.yaml#/webhooks/issue.opened/properties/sender',
    });
    expect(out.events.map((e) => e.payload.schema)).toEqual([
      object({ sender: { $ref: '#/schemas/User' }, assignee: { $ref: '#/schemas/User' } }),
      object({ sender: { $ref: '#/schemas/User' } }),
    ]);
    expect(expand(out, input)).toEqual({ schemas: {}, events: input.events.map((e) => e.payload.schema) });
  });

  it('names an untitled object after the property it first appears under, and avoids taken keys', () => {
    const { title: _, ...owner } = user;
    const input = model([event('a', object({ owner, also: owner }))], {
      owner: { schema: { type: 'string' }, source: 's' },
    });
    const out = hoistSharedSchemas(input);
    expect(Object.keys(out.schemas)).toEqual(['owner', 'owner-2']);
    expect(out.schemas['owner-2']?.schema).toEqual(owner);
  });

  it('keeps copies that differ in any keyword, annotations included, apart', () => {
    const described = { ...user, description: 'The user who starred.' };
    const out = hoistSharedSchemas(
      model([event('a', object({ one: user })), event('b', object({ two: described }))]),
    );
    expect(Object.keys(out.schemas)).toEqual([]);
  });

  it('turns an inline copy of a named schema into a reference to it, however small', () => {
    const small = { type: 'object', properties: { id: { type: 'string' } } };
    const input = model([event('a', object({ thing: small }))], {
      Thing: { schema: small, source: 's#/Thing' },
    });
    const out = hoistSharedSchemas(input);
    expect(out.events[0]?.payload.schema).toEqual(object({ thing: { $ref: '#/schemas/Thing' } }));
    expect(out.schemas.Thing?.schema).toEqual(small);
  });

  it('counts a child of a shared parent once, not once per copy of the parent', () => {
    const repo = {
      title: 'Repository',
      type: 'object',
      properties: { owner: user, name: { type: 'string' } },
    };
    const once = hoistSharedSchemas(
      model([event('a', object({ repository: repo })), event('b', object({ repository: repo }))]),
    );
    expect(Object.keys(once.schemas)).toEqual(['Repository']);
    expect(once.schemas.Repository?.schema).toEqual(repo);

    const twice = hoistSharedSchemas(
      model([
        event('a', object({ repository: repo })),
        event('b', object({ repository: repo, sender: user })),
      ]),
    );
    expect(Object.keys(twice.schemas).sort()).toEqual(['Repository', 'User']);
    expect(twice.schemas.Repository?.schema).toEqual({
      ...repo,
      properties: { owner: { $ref: '#/schemas/User' }, name: { type: 'string' } },
    });
  });

  it('leaves small objects inline and returns the model itself when nothing is shared', () => {
    const tiny = object({ id: { type: 'string' } });
    const input = model([event('a', object({ x: tiny, y: tiny }))]);
    expect(hoistSharedSchemas(input)).toBe(input);
  });

  it('looks into every subschema position (items, allOf/anyOf/oneOf, additionalProperties)', () => {
    const input = model([
      event('a', { type: 'array', items: user }),
      event('b', { anyOf: [user, { type: 'null' }] }),
      event('c', { allOf: [object({ x: { type: 'string' } })], additionalProperties: user }),
    ]);
    const out = hoistSharedSchemas(input);
    expect(Object.keys(out.schemas)).toEqual(['User']);
    expect(out.events.map((e) => e.payload.schema)).toEqual([
      { type: 'array', items: { $ref: '#/schemas/User' } },
      { anyOf: [{ $ref: '#/schemas/User' }, { type: 'null' }] },
      { allOf: [object({ x: { type: 'string' } })], additionalProperties: { $ref: '#/schemas/User' } },
    ]);
  });

  it('property: hoisting only renames — expanding the new references gives back the input', () => {
    const leaf = fc.constantFrom<JsonSchema>(
      { type: 'string' },
      { type: 'integer', minimum: 0 },
      { type: ['string', 'null'], description: 'a fairly long description so objects pass the size floor' },
      { $ref: '#/schemas/Named' },
      true,
    );
    const { schema } = fc.letrec<{ schema: JsonSchema }>((tie) => ({
      schema: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.record({
          type: fc.constant('object'),
          properties: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd/e'), tie('schema'), {
            minKeys: 1,
            maxKeys: 3,
          }),
        }),
        fc.record({ type: fc.constant('array'), items: tie('schema') }),
        fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
      ),
    }));
    // Reusing generated subtrees makes duplicates likely.
    const events = fc
      .array(schema, { minLength: 1, maxLength: 4 })
      .chain((parts) => fc.array(fc.subarray(parts, { minLength: 1 }), { minLength: 1, maxLength: 4 }));
    fc.assert(
      fc.property(events, (groups) => {
        const input = model(
          groups.map((parts, i) =>
            event(`e${i}`, object(Object.fromEntries(parts.map((p, j) => [`p${j}`, p])))),
          ),
          { Named: { schema: object({ id: { type: 'string' } }), source: 's' } },
        );
        const out = hoistSharedSchemas(input);
        expect(expand(out, input)).toEqual({
          schemas: { Named: input.schemas.Named?.schema },
          events: input.events.map((e) => e.payload.schema),
        });
        expect(hoistSharedSchemas(input)).toEqual(out);
      }),
      { numRuns: 200 },
    );
  });
});
