import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../errors.js';
import type { JsonSchema } from '../model.js';
import { cases } from './__fixtures__/cases.js';
import { ajvFor, zodFor } from './__fixtures__/harness.js';
import {
  renderTypeDeclaration,
  renderTypeExpression,
  renderZodDeclaration,
  renderZodExpression,
  type SchemaContext,
} from './index.js';
import { URI_SCHEMA } from './zod.js';

function context(diagnostics: Diagnostic[] = [], extra: Partial<SchemaContext> = {}): SchemaContext {
  return {
    typeName: (key) => key,
    schemaName: (key) => `${key}Schema`,
    warn: (d) => diagnostics.push(d),
    ...extra,
  };
}

describe('runtime behaviour of the emitted zod (each value also checked against ajv)', () => {
  for (const [name, testCase] of Object.entries(cases)) {
    it(name, () => {
      const named: Record<string, JsonSchema> = { [name]: testCase.schema, ...testCase.named };
      const { schema } = zodFor(name, testCase.schema, testCase.named);
      const ajv = ajvFor(name, named);
      for (const value of testCase.valid) {
        expect(ajv(value), `ajv accepts ${JSON.stringify(value)}`).toBe(true);
        const result = schema.safeParse(value);
        expect(result.success, `zod accepts ${JSON.stringify(value)}: ${result.error?.message}`).toBe(true);
        // Validation never rewrites the payload: unknown keys are kept, nothing is defaulted.
        expect(result.data).toEqual(value);
      }
      for (const value of testCase.invalid) {
        if (value !== undefined && !Number.isNaN(value))
          expect(ajv(value), `ajv rejects ${JSON.stringify(value)}`).toBe(false);
        expect(schema.safeParse(value).success, `zod rejects ${JSON.stringify(value)}`).toBe(false);
      }
    });
  }
});

describe('TypeScript text', () => {
  it('renders an object schema as an interface, properties in schema order, one per line', () => {
    const text = renderTypeDeclaration(
      'Pet',
      { schema: cases['objectRequiredOptional']!.schema, source: 'a.yaml#/x' },
      context(),
    );
    expect(text).toBe(
      ['export interface Pet {', '  id: number;', '  name: string;', '  tag?: string;', '}'].join('\n'),
    );
  });

  it('renders non-object schemas as type aliases', () => {
    const text = renderTypeDeclaration(
      'Status',
      { schema: { type: ['string', 'null'], enum: ['a', null] }, source: 'a#/' },
      context(),
    );
    expect(text).toBe("export type Status = 'a' | null;");
  });

  it('quotes property keys that are not identifiers', () => {
    const text = renderTypeExpression(cases['objectOddKeys']!.schema, 'a#/', context());
    expect(text).toContain("'+1': number;");
    expect(text).toContain("'-1'?: number;");
    expect(text).toContain("'content-type': string;");
    expect(text).toContain("'a/b'?: string;");
    expect(text).toContain("'it\\'s'?: string;");
    expect(text).toContain('default?: string;');
  });

  it('writes index signatures for additionalProperties schemas, widened by the declared properties', () => {
    const text = renderTypeExpression(cases['objectAdditionalSchema']!.schema, 'a#/', context());
    expect(text).toBe(
      [
        '{',
        '  a: number;',
        '  b?: boolean;',
        '  [key: string]: string | number | boolean | undefined;',
        '}',
      ].join('\n'),
    );
    expect(renderTypeExpression({ type: 'object' }, 'a#/', context())).toBe(
      '{\n  [key: string]: unknown;\n}',
    );
  });

  it('renders 3.1 type arrays, enums with null, tuples, unions and intersections', () => {
    const expr = (schema: JsonSchema) => renderTypeExpression(schema, 'a#/', context());
    expect(expr({ type: ['null', 'integer', 'string'] })).toBe('null | number | string');
    expect(expr({ enum: ['a', 1, true, null] })).toBe("'a' | 1 | true | null");
    expect(expr({ const: "it's" })).toBe("'it\\'s'");
    expect(expr(cases['tuple']!.schema)).toBe('[string, number?]');
    expect(expr(cases['tupleOpenRest']!.schema)).toBe('[string?, ...boolean[]]');
    expect(expr({ type: 'array', items: { type: ['string', 'null'] } })).toBe('(string | null)[]');
    expect(expr({ anyOf: [{ $ref: '#/schemas/A' }, { type: 'null' }] })).toBe('A | null');
    expect(expr({ allOf: [{ $ref: '#/schemas/A' }, { $ref: '#/schemas/B' }] })).toBe('A & B');
    expect(
      expr({
        allOf: [{ $ref: '#/schemas/A' }, { anyOf: [{ $ref: '#/schemas/B' }, { $ref: '#/schemas/C' }] }],
      }),
    ).toBe('A & (B | C)');
    expect(expr({})).toBe('unknown');
    expect(expr(true)).toBe('unknown');
    expect(expr(false)).toBe('never');
  });

  it('writes JSDoc from title/description/default/deprecated and escapes comment terminators', () => {
    const text = renderTypeDeclaration(
      'Documented',
      { schema: cases['documented']!.schema, source: 'a#/' },
      context(),
    );
    expect(text).toBe(
      [
        '/**',
        ' * Documented',
        ' *',
        ' * Has docs. Contains *\\/ which must be escaped.',
        ' * Second line.',
        ' */',
        'export interface Documented {',
        '  /**',
        '   * Use `new`.',
        '   * @deprecated',
        '   */',
        '  old?: string;',
        '  /** @default 3 */',
        '  level?: number;',
        '  secret?: string;',
        '}',
      ].join('\n'),
    );
  });

  it('documents a format in the comment a property has anyway, never in one of its own', () => {
    const text = renderTypeExpression(
      {
        type: 'object',
        properties: {
          at: { type: 'string', format: 'date-time', description: 'When it happened.' },
          url: { type: 'string', format: 'uri' },
          old: { type: 'string', format: 'uri', deprecated: true },
        },
      },
      'a#/',
      context(),
    );
    expect(text).toBe(
      [
        '{',
        '  /**',
        '   * When it happened.',
        '   * @format date-time',
        '   */',
        '  at?: string;',
        '  url?: string;',
        '  /**',
        '   * @format uri',
        '   * @deprecated',
        '   */',
        '  old?: string;',
        '}',
      ].join('\n'),
    );
  });

  it('breaks long unions onto lines', () => {
    const values = Array.from({ length: 12 }, (_, i) => `value-number-${i}`);
    const text = renderTypeDeclaration(
      'Long',
      { schema: { type: 'string', enum: values }, source: 'a#/' },
      context(),
    );
    expect(text.split('\n')).toHaveLength(13);
    expect(text.split('\n')[1]).toBe("  | 'value-number-0'");
  });
});

describe('zod text', () => {
  it('annotates declarations with the interface and uses loose objects by default', () => {
    const text = renderZodDeclaration(
      'PetSchema',
      'Pet',
      { schema: cases['objectRequiredOptional']!.schema, source: 'a#/' },
      context(),
    );
    expect(text).toBe(
      [
        'export const PetSchema: z.ZodType<Pet> = z.lazy(() => z.looseObject({',
        "  id: z.number().refine(Number.isInteger, 'Expected an integer'),",
        '  name: z.string(),',
        '  tag: z.string().optional(),',
        '}));',
      ].join('\n'),
    );
  });

  it('references named schemas lazily unless the emitter says they are declared', () => {
    const ref = { $ref: '#/schemas/Pet' };
    // Inside a (deferred) declaration every const is initialised: plain names.
    expect(
      renderZodDeclaration(
        'ListSchema',
        'List',
        { schema: { type: 'array', items: ref }, source: 'a#/' },
        context(),
      ),
    ).toBe('export const ListSchema: z.ZodType<List> = z.lazy(() => z.array(PetSchema));');
    expect(renderZodExpression(ref, 'a#/', context())).toBe('z.lazy(() => PetSchema)');
    expect(renderZodExpression(ref, 'a#/', context([], { isDeclared: () => true }))).toBe('PetSchema');
  });

  it('maps formats to zod v4 formats', () => {
    const expr = (format: string) => renderZodExpression({ type: 'string', format }, 'a#/', context());
    expect(expr('date-time')).toBe('z.iso.datetime({ offset: true })');
    expect(expr('date')).toBe('z.iso.date()');
    expect(expr('email')).toBe('z.email({ pattern: z.regexes.rfc5322Email })');
    expect(expr('uri')).toBe(URI_SCHEMA);
    expect(expr('uuid')).toBe('z.guid()');
    expect(expr('ipv4')).toBe('z.ipv4()');
    expect(expr('ipv6')).toBe('z.ipv6()');
    expect(expr('hostname')).toBe('z.hostname()');
    expect(expr('uri-template')).toBe('z.string()');
    expect(expr('time')).toMatch(/^z\.string\(\)\.regex\(/);
  });

  it('uses z.int() only when the bounds keep values inside the safe-integer range', () => {
    expect(renderZodExpression({ type: 'integer', minimum: 0, maximum: 10 }, 'a#/', context())).toBe(
      'z.int().gte(0).lte(10)',
    );
    expect(renderZodExpression({ type: 'integer', minimum: 0 }, 'a#/', context())).toBe(
      "z.number().refine(Number.isInteger, 'Expected an integer').gte(0)",
    );
  });

  it('chooses z.discriminatedUnion only when every branch pins the property to a distinct literal', () => {
    const named: Record<string, JsonSchema> = {
      Cat: cases['oneOfRefs']!.named!['Cat']!,
      Dog: cases['oneOfRefs']!.named!['Dog']!,
    };
    const resolve = (key: string) => {
      const schema = named[key];
      return schema === undefined ? undefined : { schema, source: `a#/components/schemas/${key}` };
    };
    const withResolve = context([], { resolve });
    expect(renderZodExpression(cases['discriminatorRefsMapping']!.schema, 'a#/', withResolve)).toMatch(
      /^z\.discriminatedUnion\('petType', \[/,
    );
    // Without a resolver the ref branches cannot be inspected: plain union.
    expect(renderZodExpression(cases['discriminatorRefsMapping']!.schema, 'a#/', context())).toMatch(
      /^z\.union\(\[/,
    );
    expect(renderZodExpression(cases['discriminatorNotLiteral']!.schema, 'a#/', withResolve)).toMatch(
      /^z\.union\(\[/,
    );
    // Duplicate literal values: plain union.
    const duplicate = {
      oneOf: [{ $ref: '#/schemas/Cat' }, { $ref: '#/schemas/Cat' }],
      discriminator: { propertyName: 'petType' },
    };
    expect(renderZodExpression(duplicate, 'a#/', withResolve)).toMatch(/^z\.union\(\[/);
  });

  it('is deterministic', () => {
    const schema = cases['objectOddKeys']!.schema;
    const a = renderZodExpression(schema, 'a#/', context()) + renderTypeExpression(schema, 'a#/', context());
    const b = renderZodExpression(schema, 'a#/', context()) + renderTypeExpression(schema, 'a#/', context());
    expect(a).toBe(b);
  });
});
