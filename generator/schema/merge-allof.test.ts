import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../model.js';
import { cases } from './__fixtures__/cases.js';
import { renderModule, zodFor } from './__fixtures__/harness.js';

/** The emitted zod declaration of `key`. */
function declaration(key: string, schemas: Record<string, JsonSchema>): string {
  const text = renderModule(schemas).schemas;
  const start = text.indexOf(`export const ${key}Schema`);
  const end = text.indexOf('\n\nexport const', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

const base: JsonSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer' }, url: { type: 'string', format: 'uri' } },
};

describe('allOf over objects is one zod object', () => {
  it('inlines a referenced object and merges the members (no z.intersection)', () => {
    const text = declaration('Hook', {
      Base: base,
      Hook: {
        allOf: [
          { $ref: '#/schemas/Base' },
          { type: 'object', required: ['url'], properties: { url: { type: 'string' }, extra: {} } },
        ],
      },
    });
    expect(text).not.toContain('.and(');
    expect(text).toMatch(
      /z\.looseObject\(\{\n {2}id: [^\n]+,\n {2}url: z\.string\(\)\.regex\([^\n]+\),\n {2}extra: /,
    );
    expect(text).not.toMatch(/url: [^\n]*optional/);
  });

  it('merges through a chain of references and nested allOf', () => {
    const text = declaration('Outer', {
      Base: base,
      Middle: { allOf: [{ $ref: '#/schemas/Base' }, { properties: { m: { type: 'string' } } }] },
      Outer: { allOf: [{ $ref: '#/schemas/Middle' }, { properties: { o: { type: 'boolean' } } }] },
    });
    expect(text).not.toContain('.and(');
    for (const key of ['id', 'url', 'm', 'o']) expect(text).toContain(`  ${key}: `);
  });

  it('keeps the intersection where a member closes its keys (closed-allOf semantics)', () => {
    const text = declaration('Hook', {
      Closed: { ...(base as object), additionalProperties: false },
      Hook: { allOf: [{ $ref: '#/schemas/Closed' }, { properties: { extra: { type: 'string' } } }] },
    });
    expect(text).toContain('ClosedSchema.and(');
    // zod reconciles keys across members: the closed member does not reject the other's key.
    const { schema } = zodFor(
      'Hook',
      { allOf: [{ $ref: '#/schemas/Closed' }, { properties: { extra: {} } }] },
      {
        Closed: { ...(base as object), additionalProperties: false },
      },
    );
    expect(schema.safeParse({ id: 1, extra: 'x' }).success).toBe(true);
  });

  it('keeps the intersection where a shared key is a closed object in one member', () => {
    const text = declaration('Subject', { Subject: cases['allOfClosedNested']?.schema ?? {} });
    expect(text).toContain('.and(');
  });

  it('keeps the intersection for members whose extra keys must match a schema', () => {
    const text = declaration('Subject', {
      Subject: {
        allOf: [
          { type: 'object', additionalProperties: { type: 'string' } },
          { type: 'object', properties: { n: { type: 'number' } } },
        ],
      },
    });
    expect(text).toContain('.and(');
    const { schema } = zodFor('Subject', {
      allOf: [
        { type: 'object', additionalProperties: { type: 'string' } },
        { type: 'object', properties: { n: { type: 'number' } } },
      ],
    });
    // `n` is extra for the first member: it must be a string and a number, so no value passes.
    expect(schema.safeParse({ n: 1 }).success).toBe(false);
    expect(schema.safeParse({ s: 'a' }).success).toBe(true);
  });

  it('drops a key schema another one refines (uri ∩ string is uri) and intersects array items', () => {
    const text = declaration('Subject', {
      ...cases['allOfRefsSharedKeys']?.named,
      Subject: cases['allOfRefsSharedKeys']?.schema ?? {},
    });
    expect(text).not.toContain('.and(');
    expect(text).toMatch(/\n {2}url: z\.string\(\)\.regex\(/);
    expect(text).toMatch(
      /\n {2}tags: z\.array\(z\.looseObject\(\{\n {4}a: z\.string\(\),\n {2}\}\)\)\.max\(2\)/,
    );
  });

  it('terminates on references that lead back to themselves', () => {
    const text = declaration('A', {
      A: { allOf: [{ $ref: '#/schemas/B' }, { properties: { a: {} } }] },
      B: { allOf: [{ $ref: '#/schemas/A' }, { properties: { b: {} } }] },
    });
    expect(text).toContain('.and(');
  });
});
