/**
 * `allOf` with a member that says `additionalProperties: false` while another member declares
 * properties it does not: JSON Schema evaluates each member on its own, so the closed member rejects
 * every value carrying the other member's properties (often no value passes), while the generated
 * zod schema merges the members and accepts them. The contract should know the two disagree.
 */
import type { Diagnostic } from '../errors.js';
import type { JsonSchema, SourcedSchema } from '../model.js';

const PREFIX = '#/schemas/';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function warnClosedAllOf(
  schemas: { readonly [key: string]: SourcedSchema },
  roots: readonly SourcedSchema[],
  diagnostics: Diagnostic[],
): void {
  const resolve = (schema: unknown): Record<string, unknown> | undefined => {
    let current = schema;
    for (let i = 0; i < 16 && isObject(current) && typeof current.$ref === 'string'; i++) {
      current = current.$ref.startsWith(PREFIX)
        ? schemas[current.$ref.slice(PREFIX.length)]?.schema
        : undefined;
    }
    return isObject(current) ? current : undefined;
  };
  const reported = new Set<string>();
  const visit = (schema: JsonSchema, source: string, path: string, depth: number): void => {
    if (!isObject(schema) || depth > 64) return;
    if (Array.isArray(schema.allOf)) {
      const members = schema.allOf.map(resolve);
      const declared = members.map((m) => (isObject(m?.properties) ? Object.keys(m.properties) : []));
      members.forEach((member, i) => {
        if (member?.additionalProperties !== false) return;
        const own = new Set(declared[i]);
        const foreign = declared.flatMap((names, j) => (j === i ? [] : names.filter((n) => !own.has(n))));
        const where = `${source}${path}`;
        if (foreign.length === 0 || reported.has(where)) return;
        reported.add(where);
        const hash = source.indexOf('#');
        diagnostics.push({
          level: 'warning',
          code: 'closed_allof_member',
          message: `allOf member ${i} has additionalProperties: false but other members add ${[...new Set(foreign)].slice(0, 5).join(', ')}: JSON Schema rejects values with those properties, the generated zod schema accepts them`,
          ...(hash >= 0 ? { file: source.slice(0, hash), pointer: `${source.slice(hash + 1)}${path}` } : {}),
        });
      });
    }
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && isObject(value)) {
        for (const [name, sub] of Object.entries(value))
          visit(sub as JsonSchema, source, `${path}/properties/${name}`, depth + 1);
      } else if (Array.isArray(value) && ['allOf', 'anyOf', 'oneOf', 'prefixItems'].includes(key)) {
        for (let i = 0; i < value.length; i++)
          visit(value[i] as JsonSchema, source, `${path}/${key}/${i}`, depth + 1);
      } else if (isObject(value) && ['items', 'additionalProperties', 'not'].includes(key)) {
        visit(value as JsonSchema, source, `${path}/${key}`, depth + 1);
      }
    }
  };
  for (const sourced of [...Object.values(schemas), ...roots]) visit(sourced.schema, sourced.source, '', 0);
}
