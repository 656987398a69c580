/**
 * Shares repeated inline object schemas before emitting. GitHub's description inlines the same
 * `User` object ~470 times and `Repository` ~40 times; declaring each once as a named type and
 * referring to it elsewhere shrinks types.ts and schemas.ts (what a consumer's tsc parses and binds)
 * without changing what any schema accepts: a `$ref` to an identical schema validates the same.
 *
 * Identical means the same JSON, annotations included (a description that differs keeps the copies
 * apart, so no JSDoc is lost). An inline copy of a named schema becomes a `$ref` to it. Pure and
 * deterministic: names follow the first occurrence in a fixed walk (named schemas by key, then
 * events in model order).
 */
import { setOwn } from '../load/document-store.js';
import { escapeToken } from '../load/pointer.js';
import type { ContractModel, EventModel, JsonSchema, JsonSchemaObject, SourcedSchema } from '../model.js';
import { compareStrings } from './names.js';

/** Smaller objects stay inline: a name costs more to read than a two-field literal. */
const MIN_JSON_LENGTH = 160;

/** Keywords whose values are a map of subschemas. */
const MAP_SLOTS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is one subschema (or, for `items`, an array of them in old drafts). */
const ONE_SLOTS = new Set([
  'additionalProperties',
  'items',
  'additionalItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);
/** Keywords whose value is an array of subschemas. */
const LIST_SLOTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

interface Entry {
  /** JSON length of the schema as written (parents are always longer than their children). */
  readonly length: number;
  /** An object schema with properties: the only kind worth a name. */
  readonly object: boolean;
  /** An object schema big enough to hoist when it repeats. */
  readonly candidate: boolean;
  /** Child entry ids, one per occurrence. */
  readonly children: readonly number[];
  /** Where it first occurs in the walk (its source pointer) and a name hint from there. */
  readonly source: string;
  readonly hint: string;
}

const CYCLE = new Error('cyclic schema object');

export function hoistSharedSchemas(model: ContractModel): ContractModel {
  try {
    return hoist(model);
  } catch (error) {
    if (error === CYCLE) return model;
    throw error;
  }
}

function hoist(model: ContractModel): ContractModel {
  const entries: Entry[] = [];
  const ids = new Map<string, number>();
  const values: JsonSchema[] = [];

  // Walks every occurrence; a structure gets its id when the walk finishes its first occurrence
  // (children before parents), which also records where that occurrence is.
  const active = new Set<object>();
  const intern = (schema: JsonSchema, source: string, hint: string): number => {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      return internKey(JSON.stringify(schema), schema, {
        length: 0,
        object: false,
        children: [],
        source,
        hint,
      });
    }
    // The model is plain data; a cyclic object (never produced by the loader) is left as it is.
    if (active.has(schema)) throw CYCLE;
    active.add(schema);
    const children: number[] = [];
    let key = '{';
    let length = 2;
    for (const [keyword, value] of Object.entries(schema)) {
      key += `${JSON.stringify(keyword)}:`;
      length += keyword.length + 4;
      const slot = slotChildren(keyword, value);
      if (slot === undefined) {
        const text = JSON.stringify(value) ?? 'null';
        key += `${text},`;
        length += text.length;
        continue;
      }
      key += slot.shape;
      for (const [index, child] of slot.schemas.entries()) {
        const token = slot.tokens[index] as string;
        const id = intern(
          child,
          `${source}/${escapeToken(keyword)}${token === '' ? '' : `/${escapeToken(token)}`}`,
          keyword === 'properties' ? token : keyword === 'items' ? `${hint}-item` : hint,
        );
        children.push(id);
        key += `#${id},`;
        length += (entries[id] as Entry).length + 8;
      }
    }
    active.delete(schema);
    return internKey(`${key}}`, schema, { length, object: isObjectSchema(schema), children, source, hint });
  };
  const internKey = (key: string, schema: JsonSchema, entry: Omit<Entry, 'candidate'>): number => {
    const known = ids.get(key);
    if (known !== undefined) return known;
    const id = entries.length;
    entries.push({ ...entry, candidate: entry.object && entry.length >= MIN_JSON_LENGTH });
    values.push(schema);
    ids.set(key, id);
    return id;
  };

  // Roots: named schemas (targets an inline copy can point to) and inline event payloads.
  const namedKeys = Object.keys(model.schemas).sort(compareStrings);
  const namedRoot = new Map<number, string>();
  const rootIds: number[] = [];
  for (const key of namedKeys) {
    const sourced = model.schemas[key] as SourcedSchema;
    const id = intern(sourced.schema, sourced.source, 'Schema');
    if (!namedRoot.has(id)) namedRoot.set(id, key);
    rootIds.push(id);
  }
  // Event payloads stay where they are (an event's payload type is named after the event), so a
  // schema that is some event's whole payload is never hoisted.
  const eventRoots = new Set<number>();
  const received = model.received ?? [];
  for (const event of [...model.events, ...received]) {
    const id = intern(event.payload.schema, event.payload.source, 'Schema');
    eventRoots.add(id);
    rootIds.push(id);
  }

  // Occurrences as emitted: a shared (named or hoisted) parent's body is written once, so its
  // children occur once per parent, not once per copy of the parent. Parents are longer than their
  // children, so walking by length (longest first) settles every parent before its children.
  const occurrences = new Array<number>(entries.length).fill(0);
  for (const id of rootIds) occurrences[id] = (occurrences[id] ?? 0) + 1;
  const byLength = entries
    .map((_, id) => id)
    .sort((a, b) => (entries[b] as Entry).length - (entries[a] as Entry).length || a - b);
  const hoisted = new Set<number>();
  for (const id of byLength) {
    const entry = entries[id] as Entry;
    const count = occurrences[id] ?? 0;
    // An inline copy of a named object schema becomes a reference to it whatever its size; scalars
    // equal to a named schema (`type: string`) stay inline.
    const named = namedRoot.has(id) && entry.object;
    const shared = named || (entry.candidate && count >= 2 && !eventRoots.has(id));
    if (shared && !named) hoisted.add(id);
    for (const child of entry.children) occurrences[child] = (occurrences[child] ?? 0) + (shared ? 1 : count);
  }
  // Keys for the hoisted schemas, by first occurrence.
  const used = new Set(namedKeys);
  const keyOf = new Map<number, string>([...namedRoot].filter(([id]) => entries[id]?.object === true));
  const ordered = [...hoisted].sort((a, b) => a - b);
  for (const id of ordered) {
    const schema = values[id] as JsonSchemaObject;
    const entry = entries[id] as Entry;
    const base = sanitizeKey(
      typeof schema.title === 'string' && schema.title !== '' ? schema.title : entry.hint,
    );
    let key = base;
    for (let n = 2; used.has(key); n++) key = `${base}-${n}`;
    used.add(key);
    keyOf.set(id, key);
  }

  let changed = false;
  const rebuild = (id: number, schema: JsonSchema, atRoot: boolean): JsonSchema => {
    const shared = atRoot ? undefined : keyOf.get(id);
    if (shared !== undefined) {
      changed = true;
      return { $ref: `#/schemas/${escapeToken(shared)}` };
    }
    if (typeof schema !== 'object' || schema === null) return schema;
    const children = (entries[id] as Entry).children;
    let i = 0;
    const out: Record<string, unknown> = {};
    for (const [keyword, value] of Object.entries(schema)) {
      const slot = slotChildren(keyword, value);
      if (slot === undefined) {
        setOwn(out, keyword, value);
        continue;
      }
      const rebuilt = slot.schemas.map((child) => rebuild(children[i++] as number, child, false));
      setOwn(out, keyword, slot.assemble(rebuilt));
    }
    return out;
  };

  const schemas: Record<string, SourcedSchema> = {};
  for (const [index, key] of namedKeys.entries()) {
    const id = rootIds[index] as number;
    const sourced = model.schemas[key] as SourcedSchema;
    setOwn(schemas, key, { schema: rebuild(id, sourced.schema, true), source: sourced.source });
  }
  for (const id of ordered) {
    schemas[keyOf.get(id) as string] = {
      schema: rebuild(id, values[id] as JsonSchema, true),
      source: (entries[id] as Entry).source,
    };
  }
  const rebuilt = (offset: number) => (event: EventModel, index: number) => {
    const id = rootIds[offset + index] as number;
    return { ...event, payload: { ...event.payload, schema: rebuild(id, event.payload.schema, true) } };
  };
  const events = model.events.map(rebuilt(namedKeys.length));
  if (!changed) return model;
  return model.received === undefined
    ? { ...model, schemas, events }
    : { ...model, schemas, events, received: received.map(rebuilt(namedKeys.length + events.length)) };
}

interface Slot {
  /** How the slot's shape enters the canonical key (map keys, list length). */
  readonly shape: string;
  readonly schemas: readonly JsonSchema[];
  /** Pointer token under the keyword for each child ('' when the keyword holds the schema itself). */
  readonly tokens: readonly string[];
  readonly assemble: (children: readonly JsonSchema[]) => unknown;
}

function slotChildren(keyword: string, value: unknown): Slot | undefined {
  if (MAP_SLOTS.has(keyword) && isRecord(value)) {
    const names = Object.keys(value);
    if (!names.every((name) => isSchema(value[name]))) return undefined;
    return {
      shape: `${JSON.stringify(names)}`,
      schemas: names.map((name) => value[name] as JsonSchema),
      tokens: names,
      assemble: (children) => Object.fromEntries(names.map((name, i) => [name, children[i]])),
    };
  }
  if ((LIST_SLOTS.has(keyword) || keyword === 'items') && Array.isArray(value)) {
    if (!value.every(isSchema)) return undefined;
    return {
      shape: `[${value.length}]`,
      schemas: value as JsonSchema[],
      tokens: value.map((_, i) => String(i)),
      assemble: (children) => [...children],
    };
  }
  if (ONE_SLOTS.has(keyword) && isSchema(value)) {
    return { shape: '', schemas: [value], tokens: [''], assemble: (children) => children[0] };
  }
  return undefined;
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'boolean' || isRecord(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isObjectSchema(schema: JsonSchemaObject): boolean {
  return (
    isRecord(schema.properties) && Object.keys(schema.properties).length > 0 && schema.$ref === undefined
  );
}

/** Model keys stay readable in `#/schemas/<key>`: `[A-Za-z0-9._-]` only (see normalize-schema). */
function sanitizeKey(name: string): string {
  const key = name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '');
  return key === '' ? 'Schema' : key;
}
