/**
 * Turns schemas as written (OpenAPI 3.0/3.1, AsyncAPI, JSON Schema drafts) into the model's
 * normalised JSON Schema (see generator/model.ts):
 * - `$ref`s become `#/schemas/<key>`. Targets that are *named* keep their name as the key: a member of
 *   a `schemas`, `definitions` or `$defs` map, a top-level entry of another file, or another file's
 *   root (named after the file). Other targets are inlined; one that recursively contains itself is
 *   promoted to a named schema, so recursion always ends in a model-local ref. The same holds for a
 *   value met again below itself without a `$ref` (a YAML alias nested into itself, or a structural
 *   path back after a `$ref` to an ancestor): it refers to its first occurrence.
 * - `$ref` with siblings: annotation-only siblings (description, title, …) stay next to the `$ref`;
 *   any other sibling turns the node into `{ allOf: [{ $ref }], ...siblings }` (2020-12 semantics,
 *   also applied to 3.0 documents where siblings are technically ignored).
 * - `nullable`/`x-nullable` → `"null"` in `type` (also added to `enum`), or `anyOf [X, {type: null}]`
 *   when there is no `type`; boolean `exclusiveMinimum/Maximum` → numeric; `example` → `examples`.
 * - `$defs`/`definitions` are dropped: everything they hold that is used is reached through a ref.
 * - `discriminator`: mapping values become model-local refs; AsyncAPI's string form becomes
 *   `{ propertyName }`.
 * Named keys are unique: on a collision the schema from the root document keeps the plain name, the
 * others get `_2`, `_3`, … in (file, pointer) order, so the result never depends on traversal order.
 */

import { type Diagnostic, GeneratorError } from '../errors.js';
import { child, type DocumentStore, isRecord, type Loc, setOwn, where } from '../load/document-store.js';
import { MAX_SCHEMA_DEPTH, schemaTooDeep } from '../load/limits.js';
import { parsePointer } from '../load/pointer.js';
import type { JsonSchema, JsonSchemaObject, SourcedSchema } from '../model.js';

const ONE = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
]);
const MAP = new Set(['properties', 'patternProperties', 'dependentSchemas']);
const LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const DROPPED = new Set(['$defs', 'definitions']);
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
  'externalDocs',
  'xml',
]);
const CONTAINERS = new Set(['schemas', 'definitions', '$defs']);

type Fixup = (ref: string) => void;

interface Entry {
  readonly base: string;
  readonly loc: Loc;
  schema: JsonSchema;
  readonly fixups: Fixup[];
}

interface WalkContext {
  /** Inlined (unnamed) targets being expanded: meeting one again means recursion. */
  readonly inline: Set<string>;
  /** Schema objects on the current path, with where they were first met. */
  readonly ancestors: Map<object, Loc>;
}

const freshContext = (): WalkContext => ({ inline: new Set(), ancestors: new Map() });

const idOf = (loc: Loc): string => `${loc.doc.id}#${loc.pointer}`;

export class SchemaNormalizer {
  private readonly entries = new Map<string, Entry>();
  private readonly promoted = new Set<string>();
  private readonly checkedChains = new Set<string>();
  /** schema() calls on the stack (nesting and followed refs): bounded, see load/limits.ts. */
  private depth = 0;
  /** Named schemas registered but not normalised yet: a worklist, so a chain of named $refs costs no stack. */
  private readonly pending: Entry[] = [];

  constructor(
    private readonly store: DocumentStore,
    private readonly diagnostics: Diagnostic[],
  ) {}

  /** Normalises the schema at `loc` (any schema position, not necessarily a named one). */
  normalize(loc: Loc): SourcedSchema {
    const schema = this.schema(loc, freshContext());
    this.drain();
    return { schema, source: where(loc) };
  }

  /** Normalises a schema value that is nested in a larger structure but already normalised around. */
  schemaAt(loc: Loc): JsonSchema {
    const schema = this.schema(loc, freshContext());
    this.drain();
    return schema;
  }

  /** Normalises every registered named schema, including those registered while doing so. */
  private drain(): void {
    for (let entry = this.pending.shift(); entry !== undefined; entry = this.pending.shift()) {
      // A fresh context: a named schema's body never depends on who referenced it first.
      entry.schema = this.schema(entry.loc, freshContext());
    }
  }

  /** Assigns the keys and fills every model-local ref. Call once, after the last normalize(). */
  finish(): Record<string, SourcedSchema> {
    this.drain();
    const rootId = this.store.root.id;
    const ordered = [...this.entries.values()].sort((a, b) => {
      const ra = a.loc.doc.id === rootId ? 0 : 1;
      const rb = b.loc.doc.id === rootId ? 0 : 1;
      if (ra !== rb) return ra - rb;
      if (a.loc.doc.display !== b.loc.doc.display) return a.loc.doc.display < b.loc.doc.display ? -1 : 1;
      return a.loc.pointer < b.loc.pointer ? -1 : a.loc.pointer > b.loc.pointer ? 1 : 0;
    });
    const taken = new Set<string>();
    const keyed: [string, Entry][] = [];
    for (const entry of ordered) {
      const base = sanitizeKey(entry.base);
      let key = base;
      for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
      if (key !== base) {
        this.diagnostics.push({
          level: 'info',
          code: 'schema_renamed',
          message: `schema "${entry.base}" renamed to "${key}": the name is used by another schema`,
          file: entry.loc.doc.display,
          pointer: entry.loc.pointer,
        });
      }
      taken.add(key);
      keyed.push([key, entry]);
    }
    const schemas: Record<string, SourcedSchema> = {};
    keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (const [key, entry] of keyed) {
      const ref = `#/schemas/${key}`;
      for (const fixup of entry.fixups) fixup(ref);
      setOwn(schemas, key, { schema: entry.schema, source: where(entry.loc) });
    }
    return schemas;
  }

  private schema(loc: Loc, ctx: WalkContext): JsonSchema {
    const value = loc.value;
    if (typeof value === 'boolean') return value;
    if (!isRecord(value)) {
      throw new GeneratorError('invalid_document', 'a schema must be an object or a boolean', {
        file: loc.doc.display,
        pointer: loc.pointer,
        expected: 'a JSON Schema (object or boolean)',
      });
    }
    const first = ctx.ancestors.get(value);
    if (first) {
      // The same value again below itself: reached back through a $ref to its container, or a YAML
      // alias nested into itself. Either way it is recursion: refer to the first occurrence.
      const node: Record<string, unknown> = { $ref: '' };
      this.register(first, namedBase(first, this.store.root.id) ?? lastToken(first), (r) => {
        node.$ref = r;
      });
      return node;
    }
    if (this.depth >= MAX_SCHEMA_DEPTH) throw schemaTooDeep(loc.doc.display, loc.pointer);
    this.depth++;
    ctx.ancestors.set(value, loc);
    try {
      return this.object(loc, value, ctx);
    } finally {
      this.depth--;
      ctx.ancestors.delete(value);
    }
  }

  private object(loc: Loc, value: Record<string, unknown>, ctx: WalkContext): JsonSchemaObject {
    const ref = typeof value.$ref === 'string' ? value.$ref : undefined;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (key === '$ref' && ref !== undefined) continue;
      if (DROPPED.has(key)) continue;
      if (ONE.has(key)) {
        out[key] =
          Array.isArray(item) && key === 'items'
            ? item.map((_, i) => this.schema(child(child(loc, key), i), ctx))
            : typeof item === 'boolean' || isRecord(item)
              ? this.schema(child(loc, key), ctx)
              : item;
      } else if (MAP.has(key) && isRecord(item)) {
        const map: Record<string, JsonSchema> = {};
        const at = child(loc, key);
        for (const name of Object.keys(item)) setOwn(map, name, this.schema(child(at, name), ctx));
        out[key] = map;
      } else if (LIST.has(key) && Array.isArray(item)) {
        const at = child(loc, key);
        out[key] = item.map((_, i) => this.schema(child(at, i), ctx));
      } else if (key === 'dependencies' && isRecord(item)) {
        const map: Record<string, unknown> = {};
        const at = child(loc, key);
        for (const name of Object.keys(item)) {
          const dep = item[name];
          setOwn(
            map,
            name,
            typeof dep === 'boolean' || isRecord(dep) ? this.schema(child(at, name), ctx) : dep,
          );
        }
        out[key] = map;
      } else if (key === 'discriminator' && isRecord(item) && isRecord(item.mapping)) {
        out[key] = this.discriminator(child(loc, key), item, item.mapping);
      } else if (key === 'discriminator' && typeof item === 'string') {
        // AsyncAPI's Schema Object writes the property name alone; the model uses the OpenAPI form.
        out[key] = { propertyName: item };
      } else {
        setOwn(out, key, item);
      }
    }
    const nullable = out.nullable === true || out['x-nullable'] === true;
    if (typeof out.nullable === 'boolean') delete out.nullable;
    if (typeof out['x-nullable'] === 'boolean') delete out['x-nullable'];
    numericExclusive(out, 'exclusiveMinimum', 'minimum');
    numericExclusive(out, 'exclusiveMaximum', 'maximum');
    if ('example' in out) {
      const example = out.example;
      delete out.example;
      if (Array.isArray(out.examples)) out.examples = [...out.examples, example];
      else if (out.examples === undefined) out.examples = [example];
    }
    let result: JsonSchemaObject = ref === undefined ? out : this.ref(loc, ref, out, ctx);
    if (nullable) result = withNull(result);
    return result;
  }

  private ref(loc: Loc, ref: string, rest: Record<string, unknown>, ctx: WalkContext): JsonSchemaObject {
    const target = this.store.resolve(ref, loc);
    if (isRecord(target.value) && typeof target.value.$ref === 'string') {
      const key = idOf(loc);
      if (!this.checkedChains.has(key)) {
        this.store.deref(loc); // throws ref_cycle for a loop of pure $refs
        this.checkedChains.add(key);
      }
    }
    const id = idOf(target);
    const restKeys = Object.keys(rest);
    let base = namedBase(target, this.store.root.id);
    const recursive =
      ctx.inline.has(id) ||
      (isRecord(target.value) && ctx.ancestors.has(target.value)) ||
      this.promoted.has(id);
    if (base === undefined && recursive) {
      // Recursion through an unnamed target: name it after its last pointer token.
      this.promoted.add(id);
      base = lastToken(target);
    }
    if (base !== undefined) {
      if (restKeys.length === 0 || restKeys.every((k) => ANNOTATIONS.has(k))) {
        const node: Record<string, unknown> = { $ref: '', ...rest };
        this.register(target, base, (r) => {
          node.$ref = r;
        });
        return node;
      }
      const node: Record<string, unknown> = { $ref: '' };
      this.register(target, base, (r) => {
        node.$ref = r;
      });
      return { allOf: [node], ...rest };
    }
    ctx.inline.add(id);
    const inlined = this.schema(target, ctx);
    ctx.inline.delete(id);
    if (restKeys.length === 0) return typeof inlined === 'boolean' ? { allOf: [inlined] } : inlined;
    return { allOf: [inlined], ...rest };
  }

  private register(target: Loc, base: string, fixup: Fixup): void {
    const id = idOf(target);
    let entry = this.entries.get(id);
    if (!entry) {
      entry = { base, loc: target, schema: true, fixups: [] };
      this.entries.set(id, entry);
      this.pending.push(entry);
    }
    entry.fixups.push(fixup);
  }

  private discriminator(
    loc: Loc,
    discriminator: Record<string, unknown>,
    mapping: Record<string, unknown>,
  ): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const at = child(loc, 'mapping');
    for (const name of Object.keys(mapping)) {
      const value = mapping[name];
      setOwn(out, name, value);
      if (typeof value !== 'string') continue;
      const ref = value.includes('#') || value.includes('/') ? value : `#/components/schemas/${value}`;
      try {
        const target = this.store.resolve(ref, child(at, name));
        const base = namedBase(target, this.store.root.id);
        if (base === undefined) continue;
        this.register(target, base, (r) => {
          setOwn(out, name, r);
        });
      } catch (error) {
        if (!(error instanceof GeneratorError)) throw error;
        this.diagnostics.push({
          level: 'warning',
          code: 'discriminator_mapping_unresolved',
          message: `discriminator mapping "${name}" → "${value}" kept as written: ${error.message}`,
          file: loc.doc.display,
          pointer: at.pointer,
        });
      }
    }
    return { ...discriminator, mapping: out };
  }
}

/** The name a ref target keeps, or undefined when it is not a named place. */
function namedBase(target: Loc, rootId: string): string | undefined {
  const tokens = parsePointer(target.pointer) ?? [];
  const last = tokens.at(-1);
  if (tokens.length >= 2 && CONTAINERS.has(tokens[tokens.length - 2] as string)) return last;
  if (target.doc.id !== rootId) {
    if (tokens.length === 1) return last;
    if (tokens.length === 0) return fileStem(target.doc.id);
  }
  return undefined;
}

function lastToken(loc: Loc): string {
  return parsePointer(loc.pointer)?.at(-1) ?? fileStem(loc.doc.id);
}

function fileStem(id: string): string {
  const name = id.replace(/[?#].*$/, '').replace(/^.*[\\/]/, '');
  return name.replace(/\.(ya?ml|json)$/i, '') || 'Schema';
}

/** Keys stay readable in `#/schemas/<key>` without escaping: `[A-Za-z0-9._-]` only. */
function sanitizeKey(name: string): string {
  const key = name.replace(/[^A-Za-z0-9._-]+/g, '_');
  return key === '' ? 'Schema' : key;
}

function numericExclusive(out: Record<string, unknown>, exclusive: string, bound: string): void {
  const flag = out[exclusive];
  if (typeof flag !== 'boolean') return;
  if (flag && typeof out[bound] === 'number') {
    out[exclusive] = out[bound];
    delete out[bound];
  } else {
    delete out[exclusive];
  }
}

/** Adds `null` to a schema this module built (so it may be changed in place; refs stay linked). */
function withNull(schema: JsonSchemaObject): JsonSchemaObject {
  const out = schema as Record<string, unknown>;
  const type = out.type;
  const hasNull = Array.isArray(out.enum) && out.enum.includes(null);
  if (typeof type === 'string' || Array.isArray(type)) {
    const types: unknown[] = typeof type === 'string' ? [type] : type;
    if (!types.includes('null')) out.type = [...types, 'null'];
    if (Array.isArray(out.enum) && !hasNull) out.enum = [...out.enum, null];
    return out;
  }
  if (Array.isArray(out.enum)) {
    if (!hasNull) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}
