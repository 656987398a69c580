/**
 * OpenAPI 3.0's inheritance idiom: a base schema with a `discriminator` (and usually a `mapping`)
 * whose subtypes `allOf` the base. A payload typed as the base means "one of the subtypes"; as
 * written it would be typed as the base alone and lose every subtype field. So, in the model:
 * - the base's own content moves to `<Base>Base`, which the subtypes' `allOf` now refer to;
 * - the base becomes `anyOf` of its subtypes, each pinned to its discriminator value
 *   (`{ allOf: [{ $ref: Cat }, { properties: { petType: { const: cat } }, required: [petType] }] }`).
 * Subtypes come from the mapping (model-local refs), else from the named schemas whose `allOf`
 * holds the base (their key is the value, as OpenAPI defines for an absent mapping).
 */
import type { Diagnostic } from '../errors.js';
import type { JsonSchema, JsonSchemaObject, SourcedSchema } from '../model.js';

const PREFIX = '#/schemas/';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refersTo(schema: JsonSchema | undefined, key: string): boolean {
  return (
    isObject(schema) &&
    Array.isArray(schema.allOf) &&
    schema.allOf.some((p) => isObject(p) && p.$ref === PREFIX + key)
  );
}

export function expandDiscriminatedBases(
  schemas: { readonly [key: string]: SourcedSchema },
  diagnostics: Diagnostic[],
): { [key: string]: SourcedSchema } {
  const out: { [key: string]: SourcedSchema } = { ...schemas };
  for (const [key, sourced] of Object.entries(schemas)) {
    const base = sourced.schema;
    if (!isObject(base) || base.oneOf !== undefined || base.anyOf !== undefined) continue;
    const discriminator = base.discriminator;
    if (!isObject(discriminator) || typeof discriminator.propertyName !== 'string') continue;
    const property = discriminator.propertyName;
    const subtypes: [value: string, subtype: string][] = [];
    if (isObject(discriminator.mapping)) {
      for (const [value, ref] of Object.entries(discriminator.mapping)) {
        if (typeof ref === 'string' && ref.startsWith(PREFIX))
          subtypes.push([value, ref.slice(PREFIX.length)]);
      }
    } else {
      for (const [other, s] of Object.entries(schemas))
        if (refersTo(s.schema, key)) subtypes.push([other, other]);
    }
    // Only the inheritance idiom: every subtype extends this base (a mapping over unrelated schemas is left alone).
    if (subtypes.length === 0 || !subtypes.every(([, sub]) => refersTo(out[sub]?.schema, key))) continue;
    let baseKey = `${key}Base`;
    for (let n = 2; baseKey in out; n++) baseKey = `${key}Base_${n}`;
    const { discriminator: _discriminator, ...own } = base;
    out[baseKey] = { schema: own, source: sourced.source };
    for (const [, sub] of subtypes) {
      const s = out[sub] as SourcedSchema;
      const schema = s.schema as JsonSchemaObject;
      out[sub] = {
        ...s,
        schema: {
          ...schema,
          allOf: (schema.allOf as unknown[]).map((p) =>
            isObject(p) && p.$ref === PREFIX + key ? { ...p, $ref: PREFIX + baseKey } : p,
          ),
        },
      };
    }
    const annotations = Object.fromEntries(
      Object.entries(base).filter(([k]) => ['title', 'description', 'deprecated'].includes(k)),
    );
    out[key] = {
      schema: {
        ...annotations,
        anyOf: subtypes.map(([value, sub]) => ({
          allOf: [
            { $ref: PREFIX + sub },
            { type: 'object', properties: { [property]: { const: value } }, required: [property] },
          ],
        })),
        discriminator,
      },
      source: sourced.source,
    };
    diagnostics.push({
      level: 'info',
      code: 'discriminator_union',
      message: `schema "${key}" has subtypes through its discriminator: typed as one of ${subtypes.map(([, s]) => s).join(', ')} (its own fields are "${baseKey}")`,
      ...(sourced.source.includes('#')
        ? {
            file: sourced.source.slice(0, sourced.source.indexOf('#')),
            pointer: sourced.source.slice(sourced.source.indexOf('#') + 1),
          }
        : {}),
    });
  }
  return out;
}
