/**
 * fast-check arbitraries for the schema parity tests: simple JSON Schemas (leaves, objects, arrays,
 * unions, allOf, tuples) and values shaped by a schema (often valid, sometimes not) mixed with
 * arbitrary JSON. Test-only (excluded from the build).
 */
import fc from 'fast-check';

export type Schema = Record<string, unknown>;

export const KEYS = ['id', 'name', '+1', 'content-type', 'a b', 'default'];
const PATTERNS = ['^[a-z]+$', 'a', '^\\d{2,}$', '😀', '^.{0,3}$'];

const literal = fc.oneof(
  fc.constantFrom('a', 'b', '', 'A'),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(1.5, true, false, null),
);

const stringSchema: fc.Arbitrary<Schema> = fc.record(
  {
    type: fc.constant('string'),
    minLength: fc.integer({ min: 0, max: 3 }),
    maxLength: fc.integer({ min: 0, max: 4 }),
    pattern: fc.constantFrom(...PATTERNS),
  },
  { requiredKeys: ['type'] },
);

const numberSchema: fc.Arbitrary<Schema> = fc.record(
  {
    type: fc.constantFrom('number', 'integer'),
    minimum: fc.integer({ min: -5, max: 5 }),
    maximum: fc.integer({ min: -5, max: 10 }),
    exclusiveMinimum: fc.constantFrom(-2.5, 0, 1),
    exclusiveMaximum: fc.constantFrom(2.5, 5, 100),
    multipleOf: fc.constantFrom(1, 2, 3),
  },
  { requiredKeys: ['type'] },
);

export const leaf: fc.Arbitrary<Schema> = fc.oneof(
  stringSchema,
  numberSchema,
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: 'null' }),
  fc.constant({}),
  fc.array(literal, { minLength: 1, maxLength: 4 }).map((values) => ({ enum: values })),
  literal.map((value) => ({ const: value })),
  fc
    .subarray(['string', 'integer', 'number', 'boolean', 'null'], { minLength: 1 })
    .map((types) => ({ type: types })),
);

export const { schema: schemaArb } = fc.letrec<{ schema: Schema; object: Schema; array: Schema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    tie('object'),
    tie('array'),
    nullable(tie('schema')),
    anyOf(tie('schema')),
    // additionalProperties:false inside allOf is a documented difference (zod reconciles keys across
    // intersection members), so allOf members here keep extra keys open.
    fc.array(tie('object'), { minLength: 2, maxLength: 2 }).map((members) => ({
      allOf: members.map((m) =>
        m['additionalProperties'] === false ? { ...m, additionalProperties: true } : m,
      ),
    })),
    tuple(tie('schema')),
  ),
  object: fc
    .record(
      {
        properties: fc.dictionary(fc.constantFrom(...KEYS), tie('schema'), { maxKeys: 3 }),
        required: fc.subarray(KEYS, { maxLength: 2 }),
        additionalProperties: fc.oneof(fc.constant(true), fc.constant(false), tie('schema')),
      },
      { requiredKeys: ['properties'] },
    )
    .map((o) => ({ type: 'object', ...o })),
  array: fc
    .record(
      {
        items: tie('schema'),
        minItems: fc.integer({ min: 0, max: 2 }),
        maxItems: fc.integer({ min: 0, max: 3 }),
      },
      { requiredKeys: [] },
    )
    .chain((a) =>
      // uniqueItems only over primitives: objects are compared by JSON text (documented difference).
      fc
        .boolean()
        .map((unique) =>
          unique && isPrimitiveSchema(a.items)
            ? { type: 'array', ...a, uniqueItems: true }
            : { type: 'array', ...a },
        ),
    ),
}));

export function nullable(inner: fc.Arbitrary<Schema>): fc.Arbitrary<Schema> {
  return inner.map((s) => ({ anyOf: [s, { type: 'null' }] }));
}

export function anyOf(inner: fc.Arbitrary<Schema>): fc.Arbitrary<Schema> {
  return fc.array(inner, { minLength: 2, maxLength: 3 }).map((members) => ({ anyOf: members }));
}

function tuple(inner: fc.Arbitrary<Schema>): fc.Arbitrary<Schema> {
  return fc
    .record(
      {
        prefixItems: fc.array(inner, { minLength: 1, maxLength: 3 }),
        items: fc.oneof(fc.constant(false), inner),
        minItems: fc.integer({ min: 0, max: 4 }),
        maxItems: fc.integer({ min: 0, max: 4 }),
      },
      { requiredKeys: ['prefixItems'] },
    )
    .map((t) => ({ type: 'array', ...t }));
}

function isPrimitiveSchema(schema: unknown): boolean {
  const s = schema as Schema | undefined;
  return s !== undefined && ['string', 'number', 'integer', 'boolean', 'null'].includes(String(s['type']));
}

/** Values shaped by the schema (often valid, sometimes not) mixed with arbitrary JSON. */
export function valueFor(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  const noise = fc.jsonValue({ maxDepth: 2 });
  if (depth > 4) return noise;
  const type = schema['type'];
  let shaped: fc.Arbitrary<unknown> = noise;
  if (Array.isArray(schema['anyOf'])) {
    shaped = fc.oneof(...(schema['anyOf'] as Schema[]).map((m) => valueFor(m, depth + 1)));
  } else if (Array.isArray(schema['enum'])) {
    shaped = fc.constantFrom(...(schema['enum'] as unknown[]));
  } else if ('const' in schema) {
    shaped = fc.constant(schema['const']);
  } else if (type === 'string') {
    shaped = fc.oneof(
      fc.string({ maxLength: 5 }),
      fc.string({ unit: 'binary', maxLength: 5 }),
      fc.constantFrom('😀', '😀😀a', '12', 'abc', 'a'),
    );
  } else if (type === 'number' || type === 'integer') {
    shaped = fc.oneof(
      fc.integer({ min: -12, max: 12 }),
      fc.double({ min: -12, max: 12, noNaN: true }),
      fc.constantFrom(2 ** 60, -(2 ** 60), 0.5, 2.5),
    );
  } else if (type === 'object') {
    const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
    const entries: Record<string, fc.Arbitrary<unknown>> = {};
    for (const key of KEYS) {
      entries[key] = key in properties ? valueFor(properties[key] as Schema, depth + 1) : noise;
    }
    shaped = fc.record(entries, { requiredKeys: [] });
  } else if (Array.isArray(schema['allOf'])) {
    shaped = fc.oneof(...(schema['allOf'] as Schema[]).map((m) => valueFor(m, depth + 1)));
  } else if (type === 'array' && Array.isArray(schema['prefixItems'])) {
    const prefix = (schema['prefixItems'] as Schema[]).map((m) => valueFor(m, depth + 1));
    const rest = typeof schema['items'] === 'object' ? valueFor(schema['items'] as Schema, depth + 1) : noise;
    shaped = fc
      .tuple(fc.tuple(...prefix), fc.array(rest, { maxLength: 2 }), fc.nat(prefix.length))
      .map(([head, tail, cut]) => [...head.slice(0, cut), ...(cut === head.length ? tail : [])]);
  } else if (type === 'array') {
    shaped = fc.array(valueFor((schema['items'] ?? {}) as Schema, depth + 1), { maxLength: 4 });
  }
  return fc.oneof({ weight: 4, arbitrary: shaped }, { weight: 1, arbitrary: noise });
}
