/**
 * A comparison view of a normalised schema: `$ref`s resolved against the model, `allOf` members
 * merged into one object view, nullability split off, and single-member unions unwrapped, so two
 * spellings of the same thing (`anyOf: [X, {type: null}]` vs `type: [X, null]`) compare equal.
 */
import type { ContractModel, JsonSchema, JsonSchemaObject } from '../model.js';

const REF_PREFIX = '#/schemas/';

export type Obj = JsonSchemaObject;

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The model key of a `{ $ref: '#/schemas/<key>' }`, or undefined. */
export function refKey(schema: JsonSchema): string | undefined {
  if (!isObj(schema)) return undefined;
  const ref = schema.$ref;
  return typeof ref === 'string' && ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : undefined;
}

/** Follows a chain of refs (bounded: a ref to itself ends as `{}`). */
export function resolve(model: ContractModel, schema: JsonSchema): JsonSchema {
  let current = schema;
  for (let i = 0; i < 32; i++) {
    const key = refKey(current);
    if (key === undefined) return current;
    const target = model.schemas[key];
    if (!target) return {};
    // Siblings next to $ref (2020-12) are kept: they apply together with the target.
    const { $ref: _ref, ...siblings } = current as Obj;
    current = Object.keys(siblings).length === 0 ? target.schema : { allOf: [target.schema], ...siblings };
  }
  return {};
}

/** A boolean schema as an object: `true` → `{}`, `false` → `{ not: {} }`. */
export function asObj(schema: JsonSchema): Obj {
  if (schema === true) return {};
  if (schema === false) return { not: {} };
  return schema;
}

const OBJECT_KEYWORDS = ['properties', 'required', 'additionalProperties', 'patternProperties'];

/**
 * Merges `allOf` members (refs followed, recursively) into the schema: properties and required are
 * unioned, other keywords keep the first value seen. Members that are not plain objects keep the
 * `allOf` (compared member by member).
 */
export function flattenAllOf(model: ContractModel, schema: Obj, seen: Set<string> = new Set()): Obj {
  const allOf = schema.allOf;
  if (!Array.isArray(allOf)) return schema;
  const members: Obj[] = [];
  for (const member of allOf as JsonSchema[]) {
    const key = refKey(member);
    if (key !== undefined) {
      if (seen.has(key)) return schema;
      seen.add(key);
    }
    const resolved = asObj(resolve(model, member));
    if (resolved.anyOf !== undefined || resolved.oneOf !== undefined || resolved.not !== undefined)
      return schema;
    members.push(flattenAllOf(model, resolved, seen));
  }
  const { allOf: _allOf, ...own } = schema;
  const merged: Record<string, unknown> = { ...own };
  const properties: Record<string, unknown> = isObj(own.properties) ? { ...own.properties } : {};
  const required = new Set<string>(Array.isArray(own.required) ? (own.required as string[]) : []);
  for (const member of members) {
    if (isObj(member.properties)) {
      for (const [name, value] of Object.entries(member.properties)) {
        if (!(name in properties)) properties[name] = value;
      }
    }
    if (Array.isArray(member.required)) for (const name of member.required as string[]) required.add(name);
    for (const [keyword, value] of Object.entries(member)) {
      if (keyword === 'properties' || keyword === 'required') continue;
      if (!(keyword in merged)) merged[keyword] = value;
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.size > 0) merged.required = [...required].sort();
  return merged;
}

export interface Split {
  /** The schema without its `null` alternative. */
  readonly schema: Obj;
  readonly nullable: boolean;
}

const isNullSchema = (s: unknown): boolean =>
  isObj(s) && (s.type === 'null' || (Array.isArray(s.enum) && s.enum.length === 1 && s.enum[0] === null));

/** Separates "or null" from the rest, however it is spelled. */
export function splitNull(schema: Obj): Split {
  let s: Obj = schema;
  let nullable = false;
  const type = s.type;
  if (Array.isArray(type) && type.includes('null') && type.length > 1) {
    nullable = true;
    const rest = type.filter((t) => t !== 'null');
    s = { ...s, type: rest.length === 1 ? rest[0] : rest };
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = s[keyword];
    if (!Array.isArray(members) || !members.some(isNullSchema)) continue;
    const rest = members.filter((m) => !isNullSchema(m));
    if (rest.length === 0) continue;
    nullable = true;
    const { [keyword]: _members, ...others } = s;
    // A single remaining member is the schema itself; its siblings (description…) stay.
    s = rest.length === 1 && isObj(rest[0]) ? { ...others, ...rest[0] } : { ...others, [keyword]: rest };
  }
  if (Array.isArray(s.enum) && s.enum.includes(null) && s.enum.length > 1) {
    nullable = true;
    s = { ...s, enum: s.enum.filter((v) => v !== null) };
  }
  return { schema: s, nullable };
}

/** The union members of a schema (`anyOf`/`oneOf`), or undefined when it is not a union. */
export function unionOf(schema: Obj): { keyword: 'anyOf' | 'oneOf'; members: JsonSchema[] } | undefined {
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const members = schema[keyword];
    if (Array.isArray(members) && members.length > 0) return { keyword, members: members as JsonSchema[] };
  }
  return undefined;
}

const JSON_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'] as const;

/** The JSON types a schema allows (without null); `undefined` means any. `integer` ⊂ `number`. */
export function typesOf(schema: Obj): Set<string> | undefined {
  const type = schema.type;
  if (typeof type === 'string') return new Set([type].filter((t) => t !== 'null'));
  if (Array.isArray(type)) return new Set((type as string[]).filter((t) => t !== 'null'));
  const values = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;
  if (values) return new Set(values.filter((v) => v !== null).map(jsonType));
  if (OBJECT_KEYWORDS.some((k) => k in schema)) return new Set(['object']);
  if ('items' in schema || 'prefixItems' in schema) return new Set(['array']);
  return undefined;
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** True when every value of type `inner` is a value of one of `outer`. */
export function typeCovered(inner: string, outer: Set<string> | undefined): boolean {
  if (outer === undefined) return true;
  return outer.has(inner) || (inner === 'integer' && outer.has('number'));
}

export const ALL_TYPES: readonly string[] = JSON_TYPES;

/** Stable text of a JSON value (keys sorted), for set membership of enum values and union members. */
export function fingerprint(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(fingerprint).join(',')}]`;
  if (isObj(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${fingerprint(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
