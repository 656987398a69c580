/**
 * Property: for arbitrary simple JSON Schemas and arbitrary JSON values, the emitted zod accepts
 * exactly what ajv (draft 2020-12 + ajv-formats) accepts. Deliberate differences are kept out of the
 * generators and documented in README.md (formats, float multipleOf, uniqueItems over objects).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../model.js';
import { anyOf, KEYS, leaf, nullable, type Schema, schemaArb, valueFor } from './__fixtures__/arbitraries.js';
import { ajvMisjudges, createAjv, loadSchemas, renderModule } from './__fixtures__/harness.js';

/** Agreement of the emitted `SubjectSchema` with ajv on `values`; throws on the first disagreement. */
function agree(named: Record<string, JsonSchema>, values: readonly unknown[]): void {
  const module = renderModule(named);
  const zodSchema = loadSchemas(module.schemas)['SubjectSchema'];
  const ajv = createAjv(named)('Subject');
  const misjudged = ajvMisjudges(named);
  for (const value of values) {
    if (misjudged(value)) continue;
    const expected = ajv(value);
    const actual = zodSchema?.safeParse(value).success;
    if (actual !== expected) {
      throw new Error(
        `disagreement on ${JSON.stringify(value)}: ajv ${expected}, zod ${actual}\nschemas: ${JSON.stringify(named)}\n${module.schemas}`,
      );
    }
  }
}

/** An open object (the allOf members that are merged into one zod object). */
const openObject: fc.Arbitrary<Schema> = fc
  .record(
    {
      properties: fc.dictionary(fc.constantFrom(...KEYS), schemaArb, { maxKeys: 3 }),
      required: fc.subarray(KEYS, { maxLength: 2 }),
      minProperties: fc.integer({ min: 0, max: 3 }),
      maxProperties: fc.integer({ min: 1, max: 6 }),
    },
    { requiredKeys: ['properties'] },
  )
  .map((o) => ({ type: 'object', ...o }));

/** A string shaped like a URI (often valid, often one character off) or arbitrary. */
const uriLike: fc.Arbitrary<string> = fc.oneof(
  fc
    .array(
      fc.constantFrom(
        ...'aZ09:/?#[]@!$&\'()*+,;=-._~% {}|\\^`"<>é\t\n'.split(''),
        'http://',
        'https://',
        '%20',
        '%zz',
        '%4',
        'mailto:',
        '//',
        '[::1]',
        'user@',
        ':8080',
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.join('')),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.string({ maxLength: 12 }),
);

describe('emitted zod accepts exactly what ajv accepts', () => {
  it('property: allOf over referenced and inline objects (merged into one zod object)', () => {
    fc.assert(
      fc.property(
        fc.tuple(openObject, openObject, openObject).chain(([a, b, own]) => {
          const subject = { allOf: [{ $ref: '#/schemas/A' }, { $ref: '#/schemas/B' }, own] };
          const values = fc.array(
            fc.oneof(valueFor({ allOf: [a, b, own] }), valueFor(a), valueFor(b), valueFor(own)),
            { minLength: 1, maxLength: 8 },
          );
          return fc.tuple(fc.constant({ A: a, B: b, Subject: subject }), values);
        }),
        ([named, values]) => agree(named as Record<string, JsonSchema>, values),
      ),
      { numRuns: 100 },
    );
  }, 120_000);

  it('property: allOf over unions, typed lists and leaves (met into one schema)', () => {
    const part: fc.Arbitrary<Schema> = fc.oneof(
      leaf,
      anyOf(leaf),
      nullable(leaf),
      fc
        .tuple(fc.subarray(['string', 'integer', 'number', 'boolean', 'null'], { minLength: 1 }), anyOf(leaf))
        .map(([type, union]) => ({ type, ...union })),
      fc.constantFrom<Schema>(
        { type: 'string', format: 'uri' },
        { type: 'string', format: 'date-time' },
        { type: 'object' },
        { anyOf: [{ type: 'object' }, { type: 'null' }] },
        { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      ),
    );
    fc.assert(
      fc.property(
        fc.tuple(part, part, part).chain(([u, a, b]) => {
          const subject = { allOf: [{ $ref: '#/schemas/U' }, a, b] };
          const values = fc.array(
            fc.oneof(
              valueFor(u),
              valueFor(a),
              valueFor(b),
              fc.constantFrom('https://x.example/a', '2024-01-31T10:00:00Z', { id: 1 }),
            ),
            { minLength: 1, maxLength: 8 },
          );
          return fc.tuple(fc.constant({ U: u, Subject: subject }), values);
        }),
        ([named, values]) => agree(named as Record<string, JsonSchema>, values),
      ),
      { numRuns: 300 },
    );
  }, 120_000);

  it('property: format uri accepts every string ajv-formats accepts', () => {
    const named = { Subject: { type: 'string', format: 'uri' } as JsonSchema };
    const zodSchema = loadSchemas(renderModule(named).schemas)['SubjectSchema'];
    const ajv = createAjv(named)('Subject');
    fc.assert(
      fc.property(uriLike, (value) => {
        // A superset, by design: authority and IP-literal structure are not parsed (README.md).
        if (ajv(value) && zodSchema?.safeParse(value).success !== true)
          throw new Error(`ajv accepts ${JSON.stringify(value)}, zod rejects it`);
      }),
      { numRuns: 20_000 },
    );
    // …and rejects what is no URI at all, as ajv does.
    for (const value of ['a b:c', 'http://a b', 'http://a\n', '%', 'x:%g0', 'http://é', 'no-scheme', ':x']) {
      expect(ajv(value), value).toBe(false);
      expect(zodSchema?.safeParse(value).success, value).toBe(false);
    }
  });

  it('property: arbitrary simple schemas × arbitrary values', () => {
    fc.assert(
      fc.property(
        schemaArb.chain((schema) =>
          fc.tuple(fc.constant(schema), fc.array(valueFor(schema), { minLength: 1, maxLength: 8 })),
        ),
        ([schema, values]) => agree({ Subject: schema as JsonSchema }, values),
      ),
      { numRuns: 150 },
    );
  }, 120_000);
});
