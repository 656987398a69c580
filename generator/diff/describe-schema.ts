/** A short human description of a schema (`string`, `integer | null`, `Pet`, `'a' | 'b'`) for old/new values. */
import type { JsonSchema } from '../model.js';
import { isObj, refKey, splitNull, typesOf, unionOf } from './schema-view.js';

export function describeSchema(schema: JsonSchema, depth = 0): string {
  if (schema === true) return 'any';
  if (schema === false) return 'never';
  const key = refKey(schema);
  if (key !== undefined) return key;
  const { schema: s, nullable } = splitNull(schema);
  const orNull = nullable ? ' | null' : '';
  const values = Array.isArray(s.enum) ? s.enum : 'const' in s ? [s.const] : undefined;
  if (values) return `${values.map((v) => JSON.stringify(v)).join(' | ')}${orNull}`;
  const union = unionOf(s);
  if (union && depth < 2)
    return `${union.members.map((m) => describeSchema(m, depth + 1)).join(' | ')}${orNull}`;
  if (Array.isArray(s.allOf) && s.allOf.length === 1 && depth < 2)
    return `${describeSchema(s.allOf[0] as JsonSchema, depth + 1)}${orNull}`;
  const types = typesOf(s);
  if (types === undefined) return `any${orNull}`;
  const parts = [...types].sort().map((t) => {
    if (t === 'array' && isObj(s.items) && depth < 2) return `array of ${describeSchema(s.items, depth + 1)}`;
    if (t === 'string' && typeof s.format === 'string') return `string (${s.format})`;
    return t;
  });
  return `${parts.join(' | ')}${orNull}`;
}
