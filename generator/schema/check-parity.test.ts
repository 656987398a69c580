/**
 * Property: the fast-path predicates (check.ts) accept only what the emitted zod schema accepts —
 * and ajv too — and zod's output for it is the input itself; where the predicate models the schema
 * fully (no tuples; values as JSON.parse makes them) it accepts exactly what zod accepts, so the
 * fast path is taken whenever it can be.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../model.js';
import { type Schema, schemaArb, valueFor } from './__fixtures__/arbitraries.js';
import { ajvMisjudges, createAjv, loadWithChecks, renderModule } from './__fixtures__/harness.js';

interface Subject {
  readonly zod: { safeParse(value: unknown): { success: boolean; data?: unknown } };
  readonly check: (value: unknown) => boolean;
  readonly ajv: (value: unknown) => boolean;
  readonly text: string;
}

function subject(named: Record<string, JsonSchema>): Subject {
  const module = renderModule(named);
  const { schemas, checks } = loadWithChecks(module);
  const zod = schemas['SubjectSchema'];
  const check = checks['SubjectSchema'];
  if (zod === undefined || check === undefined) throw new Error('SubjectSchema was not emitted');
  return { zod, check, ajv: createAjv(named)('Subject'), text: `${module.schemas}\n${module.checks}` };
}

/** Throws unless the predicate is sound for `value` (and exact where `exact`). */
function agree(s: Subject, value: unknown, exact: boolean, schema: unknown, ajv = true): void {
  const fast = s.check(value);
  const parsed = s.zod.safeParse(value);
  const where = `on ${JSON.stringify(value)}\nschema: ${JSON.stringify(schema)}\n${s.text}`;
  if (fast && !parsed.success) throw new Error(`predicate accepts, zod rejects ${where}`);
  if (ajv && fast && !s.ajv(value)) throw new Error(`predicate accepts, ajv rejects ${where}`);
  if (fast && !isDeepStrictEqual(parsed.data, value))
    throw new Error(`zod's output is not the input ${where}`);
  if (exact && fast !== parsed.success) throw new Error(`predicate ${fast}, zod ${parsed.success} ${where}`);
}

/** True unless every object in `value` is what JSON.parse makes: plain, without an own `__proto__`. */
function hasProtoKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(hasProtoKey);
  if (Object.getPrototypeOf(value) !== Object.prototype || Object.hasOwn(value, '__proto__')) return true;
  return Object.values(value).some(hasProtoKey);
}

describe('fast-path predicates agree with zod', () => {
  it('property: arbitrary simple schemas × arbitrary values', () => {
    let accepted = 0;
    fc.assert(
      fc.property(
        schemaArb.chain((schema) =>
          fc.tuple(fc.constant(schema), fc.array(valueFor(schema), { minLength: 1, maxLength: 8 })),
        ),
        ([schema, values]) => {
          const s = subject({ Subject: schema as JsonSchema });
          // zod decides tuples (its output pads them); fractional multipleOf is not generated.
          const modelled = !JSON.stringify(schema).includes('"prefixItems"');
          const misjudged = ajvMisjudges(schema);
          for (const value of values) {
            const askAjv = !misjudged(value);
            agree(s, value, modelled && !hasProtoKey(value), schema, askAjv);
            if (s.check(value)) accepted++;
          }
        },
      ),
      { numRuns: 150 },
    );
    // The fast path is taken, not only sound.
    expect(accepted).toBeGreaterThan(20);
  }, 120_000);

  it('property: formats, references and nullable objects', () => {
    const named: Record<string, JsonSchema> = {
      Ref: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      Subject: {
        type: 'object',
        properties: {
          uri: { type: 'string', format: 'uri' },
          at: { type: 'string', format: 'date-time' },
          day: { type: 'string', format: 'date' },
          time: { type: 'string', format: 'time' },
          mail: { type: 'string', format: 'email' },
          uuid: { type: 'string', format: 'uuid' },
          ref: { anyOf: [{ $ref: '#/schemas/Ref' }, { type: 'null' }] },
          list: { type: 'array', items: { $ref: '#/schemas/Ref' }, uniqueItems: true },
          strict: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
          map: { type: 'object', additionalProperties: { type: 'number' } },
        },
        required: ['ref'],
      },
    };
    const s = subject(named);
    const fields = {
      uri: fc.oneof(fc.webUrl(), fc.string({ maxLength: 6 }), fc.constantFrom('x:%4', 'a:b#c#d', 'http://é')),
      at: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.constantFrom('2024-02-30T00:00:00Z', '2024-01-31T10:00:00+01:00', '2024-01-31 10:00:00Z'),
      ),
      day: fc.constantFrom('2024-02-29', '2023-02-29', '2024-13-01', 'x'),
      time: fc.constantFrom('10:00:00Z', '23:59:60+01:00', '10:00', '24:00:00Z'),
      mail: fc.oneof(fc.emailAddress(), fc.constantFrom('a!b@example.com', 'no-at', 'a@b')),
      uuid: fc.oneof(fc.uuid(), fc.constantFrom('00000000-0000-0000-0000-00000000000g')),
      ref: fc.oneof(
        fc.constant(null),
        fc.record({ id: fc.oneof(fc.integer(), fc.double()) }, { noNullPrototype: true }),
      ),
      list: fc.array(fc.record({ id: fc.integer({ min: 0, max: 2 }) }, { noNullPrototype: true }), {
        maxLength: 3,
      }),
      strict: fc.oneof(
        fc.record({ a: fc.string() }, { noNullPrototype: true }),
        fc.record({ a: fc.string(), b: fc.string() }, { noNullPrototype: true }),
      ),
      map: fc.dictionary(fc.string({ maxLength: 2 }), fc.oneof(fc.double(), fc.string()), {
        noNullPrototype: true,
      }),
    };
    // One field at a time beside a valid `ref` (so most values are valid), or all of them at once.
    const keys = Object.keys(fields) as (keyof typeof fields)[];
    const value = fc.oneof(
      fc
        .constantFrom(...keys)
        .chain((k) => (fields[k] as fc.Arbitrary<unknown>).map((v) => ({ ref: null, [k]: v }))),
      fc.record(fields, { requiredKeys: ['ref'], noNullPrototype: true }),
    );
    let accepted = 0;
    fc.assert(
      fc.property(value, (v) => {
        // zod's formats differ from ajv-formats' in documented ways (README.md): zod is the reference.
        agree(s, v, !hasProtoKey(v), named, false);
        if (s.check(v)) accepted++;
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(300);
  });

  it('refuses an own __proto__ (zod drops it from its output) and tuples (zod pads them)', () => {
    const open = subject({ Subject: { type: 'object', properties: { a: { type: 'string' } } } });
    const withProto = JSON.parse('{"a":"x","__proto__":{"b":1}}') as unknown;
    expect(open.check(withProto)).toBe(false);
    expect(open.zod.safeParse(withProto).success).toBe(true);
    expect(open.check({ a: 'x' })).toBe(true);
    const tuple = subject({
      Subject: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
    });
    expect(tuple.check(['a'])).toBe(false);
    expect(tuple.zod.safeParse(['a']).success).toBe(true);
  });

  it('follows the schema where zod would reject (no false acceptance)', () => {
    const s = subject({
      Subject: {
        type: 'object',
        properties: {
          n: { type: 'integer', minimum: 0, maximum: 10, multipleOf: 2 },
          f: { type: 'number', exclusiveMaximum: 1 },
          e: { enum: ['a', 1, null] },
          s: { type: 'string', minLength: 2, maxLength: 3, pattern: '^a' },
        },
        required: ['n'],
      } as Schema as JsonSchema,
    });
    for (const bad of [
      {},
      { n: 11 },
      { n: 3 },
      { n: 2.5 },
      { n: 2, f: 1 },
      { n: 2, f: Number.NaN },
      { n: 2, f: Number.POSITIVE_INFINITY },
      { n: 2, e: 'b' },
      { n: 2, s: 'b' },
      { n: 2, s: 'a😀😀😀' },
      { n: 2, s: 'a' },
    ]) {
      expect(s.check(bad), JSON.stringify(bad)).toBe(false);
      expect(s.zod.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    for (const good of [{ n: 0 }, { n: 10, f: 0.5, e: null, s: 'a😀' }, { n: 4, e: 1, s: 'abc' }]) {
      expect(s.check(good), JSON.stringify(good)).toBe(true);
    }
  });
});
