/**
 * The top-level fields of a request/message body schema, as envelope derivation needs them: each
 * property's resolved schema and whether the body requires it. Looks through `$ref` and `allOf`;
 * a body that is not an object schema has no fields (undefined).
 */
import { child, isRecord, type Loc } from '../load/document-store.js';
import type { ParseContext } from './context.js';

export interface BodyField {
  /** The property's schema, `$ref`s followed. */
  readonly schema: Record<string, unknown>;
  readonly loc: Loc;
  readonly required: boolean;
}

export type BodyFields = ReadonlyMap<string, BodyField>;

export function bodyFields(ctx: ParseContext, body: Loc): BodyFields | undefined {
  const fields = new Map<string, BodyField>();
  const required = new Set<string>();
  let object = false;
  const visit = (loc: Loc, seen: Set<string>): void => {
    const resolved = ctx.store.deref(loc).loc;
    const id = `${resolved.doc.id}#${resolved.pointer}`;
    // `seen` also bounds the walk: a YAML alias cycle through allOf would make pointers grow forever.
    if (seen.has(id) || seen.size > 64 || !isRecord(resolved.value)) return;
    seen.add(id);
    const schema = resolved.value;
    if (isRecord(schema.properties)) {
      object = true;
      const properties = child(resolved, 'properties');
      for (const name of Object.keys(schema.properties)) {
        if (fields.has(name)) continue;
        const at = ctx.store.deref(child(properties, name)).loc;
        fields.set(name, { schema: isRecord(at.value) ? at.value : {}, loc: at, required: false });
      }
    }
    if (Array.isArray(schema.required)) {
      for (const name of schema.required) if (typeof name === 'string') required.add(name);
    }
    if (schema.type === 'object') object = true;
    if (Array.isArray(schema.allOf)) {
      const allOf = child(resolved, 'allOf');
      for (let i = 0; i < schema.allOf.length; i++) visit(child(allOf, i), seen);
    }
  };
  visit(body, new Set());
  if (!object) return undefined;
  const out = new Map<string, BodyField>();
  for (const [name, field] of fields) out.set(name, { ...field, required: required.has(name) });
  return out;
}

/** The one string value a schema allows (`const`, or an `enum` of one), if any. */
export function fixedString(schema: Record<string, unknown>): string | undefined {
  if (typeof schema.const === 'string') return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length === 1 && typeof schema.enum[0] === 'string') {
    return schema.enum[0];
  }
  return undefined;
}

/** The string values an `enum` allows (undefined when the schema has no string enum). */
export function enumStrings(schema: Record<string, unknown>): readonly string[] | undefined {
  if (!Array.isArray(schema.enum)) return undefined;
  const values = schema.enum.filter((v): v is string => typeof v === 'string');
  return values.length === 0 ? undefined : values;
}

/** The JSON types a schema declares (`type: x` or `type: [x, y]`); empty when it declares none. */
export function typesOf(schema: Record<string, unknown>): readonly string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === 'string');
  return [];
}
