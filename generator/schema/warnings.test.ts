import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../errors.js';
import type { JsonSchema } from '../model.js';
import { zodFor } from './__fixtures__/harness.js';
import {
  renderTypeDeclaration,
  renderZodDeclaration,
  renderZodExpression,
  type SchemaContext,
} from './index.js';

function collect(schema: JsonSchema, source = 'specs/shop.yaml#/components/schemas/Order'): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const ctx: SchemaContext = {
    typeName: (key) => key,
    schemaName: (key) => `${key}Schema`,
    warn: (d) => diagnostics.push(d),
  };
  renderZodExpression(schema, source, ctx);
  return diagnostics;
}

describe('unsupported keywords', () => {
  const unsupported: [string, JsonSchema, string][] = [
    [
      'not',
      { type: 'object', properties: { a: { type: 'string', not: { const: 'x' } } } },
      '/properties/a/not',
    ],
    [
      'if',
      JSON.parse('{"if": {"type": "string"}, "then": {"minLength": 1}, "else": {"type": "number"}}'),
      '/if',
    ],
    [
      'dependentSchemas',
      { type: 'object', dependentSchemas: { a: { required: ['b'] } } },
      '/dependentSchemas',
    ],
    ['dependentRequired', { type: 'object', dependentRequired: { a: ['b'] } }, '/dependentRequired'],
    [
      'patternProperties',
      { type: 'object', patternProperties: { '^x-': { type: 'string' } } },
      '/patternProperties',
    ],
    ['propertyNames', { type: 'object', propertyNames: { pattern: '^[a-z]+$' } }, '/propertyNames'],
    ['contains', { type: 'array', contains: { const: 1 } }, '/contains'],
    ['unevaluatedProperties', { type: 'object', unevaluatedProperties: false }, '/unevaluatedProperties'],
    ['$dynamicRef', { $dynamicRef: '#meta' }, '/$dynamicRef'],
  ];
  for (const [keyword, schema, path] of unsupported) {
    it(`${keyword}: a warning naming the JSON pointer`, () => {
      const diagnostics = collect(schema);
      const hit = diagnostics.find((d) => d.pointer === `/components/schemas/Order${path}`);
      expect(hit, JSON.stringify(diagnostics)).toBeDefined();
      expect(hit).toMatchObject({ level: 'warning', code: 'unsupported_keyword', file: 'specs/shop.yaml' });
      expect(hit?.message).toContain(`'${keyword}'`);
      expect(hit?.message).toContain('not enforced');
    });
  }

  it('escapes property names in pointers', () => {
    const diagnostics = collect({ type: 'object', properties: { 'a/b~c': { not: {} } } });
    expect(diagnostics[0]?.pointer).toBe('/components/schemas/Order/properties/a~1b~0c/not');
  });

  it('reports once per schema when its type and validator are both rendered', () => {
    const diagnostics: Diagnostic[] = [];
    const ctx: SchemaContext = {
      typeName: (k) => k,
      schemaName: (k) => `${k}S`,
      warn: (d) => diagnostics.push(d),
    };
    const sourced = { schema: { type: 'string', not: { const: '' } }, source: 'a.yaml#/x' };
    renderTypeDeclaration('X', sourced, ctx);
    renderZodDeclaration('XS', 'X', sourced, ctx);
    expect(diagnostics).toHaveLength(1);
  });

  it('is silent for annotations and supported keywords', () => {
    const diagnostics = collect({
      type: 'object',
      title: 't',
      description: 'd',
      deprecated: true,
      readOnly: true,
      writeOnly: false,
      default: {},
      examples: [{}],
      $comment: 'c',
      'x-vendor': 1,
      discriminator: { propertyName: 'k' },
      properties: { k: { type: 'string', format: 'uri-template', contentMediaType: 'text/plain' } },
    });
    expect(diagnostics).toEqual([]);
  });

  it('warns about non-model refs and invalid patterns', () => {
    expect(collect({ $ref: 'other.yaml#/Pet' })[0]).toMatchObject({
      code: 'unresolved_ref',
      pointer: '/components/schemas/Order/$ref',
    });
    expect(collect({ type: 'string', pattern: '(' })[0]).toMatchObject({
      code: 'invalid_pattern',
      pointer: '/components/schemas/Order/pattern',
    });
  });
});

describe('permissive where not enforced: never rejects what JSON Schema accepts', () => {
  it('not / if-then-else / contains / propertyNames accept everything their base accepts', () => {
    expect(
      zodFor('A', { type: 'string', not: { const: 'forbidden' } }).schema.safeParse('forbidden').success,
    ).toBe(true);
    expect(
      zodFor('A', JSON.parse('{"if": {"type": "string"}, "then": {"minLength": 5}}')).schema.safeParse('ab')
        .success,
    ).toBe(true);
    expect(zodFor('A', { type: 'array', contains: { const: 1 } }).schema.safeParse([2]).success).toBe(true);
    expect(
      zodFor('A', { type: 'object', propertyNames: { maxLength: 1 } }).schema.safeParse({ long: 1 }).success,
    ).toBe(true);
  });

  it('patternProperties keeps keys that additionalProperties:false would otherwise reject', () => {
    const { schema } = zodFor('A', {
      type: 'object',
      properties: { a: { type: 'string' } },
      patternProperties: { '^x-': {} },
      additionalProperties: false,
    });
    expect(schema.safeParse({ a: 'x', 'x-extra': 1 }).success).toBe(true);
  });

  it('unevaluatedProperties:false is not enforced (allOf-composed objects stay valid)', () => {
    const { schema } = zodFor('A', {
      allOf: [{ type: 'object', properties: { a: { type: 'string' } } }],
      properties: { b: { type: 'string' } },
      unevaluatedProperties: false,
    });
    expect(schema.safeParse({ a: 'x', b: 'y' }).success).toBe(true);
  });

  it('object/array enum members are accepted as unknown, with a warning', () => {
    const diagnostics = collect({ enum: [{ a: 1 }, [1]] });
    expect(diagnostics[0]).toMatchObject({
      code: 'unsupported_keyword',
      pointer: '/components/schemas/Order/enum',
    });
    expect(zodFor('A', { enum: [{ a: 1 }] }).schema.safeParse({ a: 1 }).success).toBe(true);
  });

  it('defaults are documented, never applied: the parsed payload is the input', () => {
    const { schema } = zodFor('A', { type: 'object', properties: { n: { type: 'integer', default: 5 } } });
    expect(schema.parse({})).toEqual({});
  });
});
