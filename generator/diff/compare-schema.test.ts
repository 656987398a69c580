/** The schema comparer on in-memory models: equivalences that must report nothing, recursion, unions. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ContractModel, JsonSchema } from '../model.js';
import { SchemaComparer } from './compare-schema.js';

function model(schemas: Record<string, JsonSchema> = {}): ContractModel {
  return {
    name: 'm',
    title: 'm',
    version: '1',
    format: 'openapi-3.1',
    file: 'm.yaml',
    events: [],
    schemas: Object.fromEntries(
      Object.entries(schemas).map(([k, schema]) => [k, { schema, source: `m.yaml#/${k}` }]),
    ),
    signature: { kind: 'none' },
    envelope: { kind: 'bare' },
    selector: { kind: 'envelope-type' },
    diagnostics: [],
  };
}

const compare = (a: JsonSchema, b: JsonSchema, oldSchemas = {}, newSchemas = {}) =>
  new SchemaComparer(model(oldSchemas), model(newSchemas)).compare(a, b).map((c) => `${c.rule} ${c.pointer}`);

const ref = (key: string) => ({ $ref: `#/schemas/${key}` });

describe('SchemaComparer', () => {
  it('reports nothing for equivalent spellings', () => {
    const pet = { type: 'object', properties: { id: { type: 'integer' } } };
    // inline vs ref
    expect(compare(pet, ref('Pet'), {}, { Pet: pet })).toEqual([]);
    // a property moved into an allOf base
    expect(
      compare(
        {
          type: 'object',
          required: ['id'],
          properties: { id: { type: 'integer' }, name: { type: 'string' } },
        },
        { allOf: [ref('Base'), { type: 'object', properties: { name: { type: 'string' } } }] },
        {},
        { Base: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } },
      ),
    ).toEqual([]);
    // three spellings of "string or null"
    expect(compare({ type: ['string', 'null'] }, { anyOf: [{ type: 'string' }, { type: 'null' }] })).toEqual(
      [],
    );
    expect(compare({ oneOf: [{ type: 'null' }, { type: 'string' }] }, { type: ['null', 'string'] })).toEqual(
      [],
    );
    // boolean schemas
    expect(compare(true, {})).toEqual([]);
  });

  it('integer → number widens, number → integer narrows', () => {
    expect(compare({ type: 'integer' }, { type: 'number' })).toEqual(['type-widened ']);
    expect(compare({ type: 'number' }, { type: 'integer' })).toEqual(['type-narrowed ']);
  });

  it('pairs union members by ref, text and type before calling the rest added/removed', () => {
    expect(
      compare(
        { oneOf: [ref('A'), { type: 'string', maxLength: 3 }] },
        { oneOf: [{ type: 'string', maxLength: 5 }, ref('A'), { type: 'integer' }] },
        { A: { type: 'object' } },
        { A: { type: 'object' } },
      ),
    ).toEqual(['constraint-relaxed /oneOf/0', 'union-member-added /oneOf/2']);
    expect(compare({ anyOf: [{ type: 'string' }, { type: 'boolean' }] }, { type: 'string' })).toEqual([
      'union-member-removed /anyOf/1',
    ]);
  });

  it('mutual recursion ends, and a change inside is reported at its first occurrence', () => {
    const oldSchemas = {
      A: { type: 'object', properties: { b: ref('B'), n: { type: 'string' } } },
      B: { type: 'object', properties: { a: ref('A') } },
    };
    const newSchemas = {
      A: { type: 'object', properties: { b: ref('B'), n: { type: 'string', maxLength: 9 } } },
      B: { type: 'object', properties: { a: ref('A') } },
    };
    const comparer = new SchemaComparer(model(oldSchemas), model(newSchemas));
    expect(comparer.compare(ref('A'), ref('A')).map((c) => c.pointer)).toEqual(['/properties/n']);
    // B was computed while A was in progress: not memoised, so from B the change is found too.
    expect(comparer.compare(ref('B'), ref('B')).map((c) => c.pointer)).toEqual([
      '/properties/a/properties/n',
    ]);
  });

  it('property: a schema compared with itself has no changes; any pair is deterministic', () => {
    const schema = fc.letrec<{ s: JsonSchema }>((tie) => ({
      s: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom<JsonSchema>(
          { type: 'string' },
          { type: ['integer', 'null'] },
          { enum: ['a', 1, null] },
          true,
          {},
        ),
        fc.record({
          type: fc.constant('object'),
          properties: fc.dictionary(fc.constantFrom('a', 'b'), tie('s')),
          required: fc.subarray(['a', 'b']),
        }),
        fc.record({ type: fc.constant('array'), items: tie('s'), maxItems: fc.nat(4) }),
        fc.array(tie('s'), { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
        fc.array(tie('s'), { minLength: 1, maxLength: 2 }).map((allOf) => ({ allOf })),
      ),
    })).s;
    fc.assert(
      fc.property(schema, schema, (s, t) => {
        expect(compare(s, s)).toEqual([]);
        expect(compare(ref('X'), ref('X'), { X: s }, { X: s })).toEqual([]);
        // any pair: terminates, deterministic
        expect(compare(s, t)).toEqual(compare(s, t));
      }),
      { numRuns: 200 },
    );
  });
});
