/**
 * The intermediate form both renderers (TypeScript and zod) walk, so the type and the validator of a
 * schema are derived from one reading of it and cannot drift apart. `build()` turns a normalised JSON
 * Schema (see generator/model.ts) into a `Node`, reporting what it cannot enforce.
 */
import type { Diagnostic } from '../errors.js';
import type { JsonSchema, JsonSchemaObject, SourcedSchema } from '../model.js';

export type Literal = string | number | boolean | null;

export interface Doc {
  readonly title?: string;
  readonly description?: string;
  readonly deprecated?: boolean;
  readonly default?: { readonly value: unknown };
  /** `format` (the TS type is just `string`/`number`, so the comment carries it). */
  readonly format?: string;
}

export interface PropertyNode {
  readonly name: string;
  readonly node: Node;
  readonly required: boolean;
  readonly doc: Doc;
}

export type StringFormat =
  | 'date-time'
  | 'date'
  | 'time'
  | 'email'
  | 'uri'
  | 'uuid'
  | 'ipv4'
  | 'ipv6'
  | 'hostname';

export type Node =
  | { readonly kind: 'unknown' }
  | { readonly kind: 'never' }
  | { readonly kind: 'ref'; readonly key: string }
  | { readonly kind: 'literal'; readonly values: readonly Literal[] }
  | {
      readonly kind: 'string';
      readonly format?: StringFormat;
      readonly minLength?: number;
      readonly maxLength?: number;
      readonly pattern?: { readonly source: string; readonly flags: string };
    }
  | {
      readonly kind: 'number';
      readonly integer: boolean;
      readonly minimum?: number;
      readonly maximum?: number;
      readonly exclusiveMinimum?: number;
      readonly exclusiveMaximum?: number;
      readonly multipleOf?: number;
    }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'null' }
  | {
      readonly kind: 'object';
      readonly properties: readonly PropertyNode[];
      /** `allow`: extra keys kept as `unknown`; `deny`: rejected; a node: extra values must match it. */
      readonly additional: 'allow' | 'deny' | Node;
      readonly minProperties?: number;
      readonly maxProperties?: number;
    }
  | {
      readonly kind: 'array';
      /** Positional schemas (`prefixItems`); arrays may be shorter unless `minItems` says otherwise. */
      readonly prefix: readonly Node[];
      /** Schema of the items after `prefix`; `never` when no further items are allowed. */
      readonly items: Node;
      readonly minItems?: number;
      readonly maxItems?: number;
      readonly unique: boolean;
    }
  | { readonly kind: 'union'; readonly members: readonly Node[]; readonly discriminator?: Discriminator }
  | { readonly kind: 'intersection'; readonly members: readonly Node[] };

/** A union every member of which is an object with a distinct literal value at `property`. */
export interface Discriminator {
  readonly property: string;
  /** Per member, the object node to validate with (refs resolved and inlined). */
  readonly branches: readonly Node[];
}

export interface BuildContext {
  warn(diagnostic: Diagnostic): void;
  /** Looks up a named schema (for discriminator checks); may be absent. */
  resolve?(key: string): SourcedSchema | undefined;
}

const REF_PREFIX = '#/schemas/';

/** Keywords whose assertions are not enforced; each use is reported (validation stays permissive). */
const UNSUPPORTED = new Set<string>([
  'not',
  'if',
  'then',
  'else',
  'dependentSchemas',
  'dependentRequired',
  'dependencies',
  'patternProperties',
  'propertyNames',
  'contains',
  'minContains',
  'maxContains',
  'unevaluatedProperties',
  'unevaluatedItems',
  '$dynamicRef',
  '$recursiveRef',
]);

const FORMATS = new Set<string>([
  'date-time',
  'date',
  'time',
  'email',
  'uri',
  'uuid',
  'ipv4',
  'ipv6',
  'hostname',
]);

const OBJECT_KEYWORDS = ['properties', 'additionalProperties', 'required', 'minProperties', 'maxProperties'];
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems'];
const STRING_KEYWORDS = ['minLength', 'maxLength', 'pattern'];
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];

type TypeName = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';
const TYPE_NAMES = new Set<string>(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

const hasOwn = (o: object, k: string): boolean => Object.hasOwn(o, k);

/** `#/schemas/<key>` → key (pointer-unescaped), or undefined for any other reference. */
export function refKey(ref: string): string | undefined {
  if (!ref.startsWith(REF_PREFIX)) return undefined;
  const token = ref.slice(REF_PREFIX.length);
  if (token === '' || token.includes('/')) return undefined;
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isObject(value: unknown): value is JsonSchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'boolean' || isObject(value);
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

export function docOf(schema: JsonSchema): Doc {
  if (!isObject(schema)) return {};
  const doc: {
    title?: string;
    description?: string;
    deprecated?: boolean;
    default?: { value: unknown };
    format?: string;
  } = {};
  if (typeof schema['title'] === 'string' && schema['title'] !== '') doc.title = schema['title'];
  if (typeof schema['description'] === 'string' && schema['description'] !== '')
    doc.description = schema['description'];
  if (schema['deprecated'] === true) doc.deprecated = true;
  if (hasOwn(schema, 'default')) doc.default = { value: schema['default'] };
  if (typeof schema['format'] === 'string' && schema['format'] !== '') doc.format = schema['format'];
  return doc;
}

const UNKNOWN: Node = { kind: 'unknown' };
const NEVER: Node = { kind: 'never' };

class Builder {
  constructor(
    private readonly ctx: BuildContext,
    private readonly file: string,
    private readonly basePointer: string,
  ) {}

  private warn(path: string, code: string, message: string): void {
    this.ctx.warn({ level: 'warning', code, message, file: this.file, pointer: this.basePointer + path });
  }

  build(schema: JsonSchema, path: string): Node {
    if (schema === true) return UNKNOWN;
    if (schema === false) return NEVER;
    if (!isObject(schema)) return UNKNOWN;

    for (const keyword of Object.keys(schema)) {
      if (UNSUPPORTED.has(keyword)) {
        this.warn(
          `${path}/${keyword}`,
          'unsupported_keyword',
          `JSON Schema keyword '${keyword}' is not enforced by the generated validator (values it would reject are accepted)`,
        );
      }
    }

    const parts: Node[] = [];
    if (typeof schema['$ref'] === 'string') {
      const key = refKey(schema['$ref']);
      if (key === undefined) {
        this.warn(
          `${path}/$ref`,
          'unresolved_ref',
          `reference '${schema['$ref']}' is not a model-local '#/schemas/<key>' reference; typed as unknown`,
        );
      } else {
        parts.push({ kind: 'ref', key });
      }
    }

    const own = this.ownType(schema, path);
    if (own) parts.push(own);

    const allOf = schema['allOf'];
    if (Array.isArray(allOf)) {
      allOf.forEach((member, i) => {
        if (isSchema(member)) parts.push(this.build(member, `${path}/allOf/${i}`));
      });
    }
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const list = schema[keyword];
      if (!Array.isArray(list)) continue;
      const members = list
        .map((member, i) => (isSchema(member) ? this.build(member, `${path}/${keyword}/${i}`) : undefined))
        .filter((m): m is Node => m !== undefined);
      parts.push(this.union(members, this.discriminator(schema, list, members)));
    }
    return intersection(parts);
  }

  /** The part of the schema described by `type`/`enum`/`const` and type-specific keywords. */
  private ownType(schema: JsonSchemaObject, path: string): Node | undefined {
    const declared = this.declaredTypes(schema);
    if (hasOwn(schema, 'const')) return this.literals([schema['const']], declared, `${path}/const`);
    if (Array.isArray(schema['enum'])) return this.literals(schema['enum'], declared, `${path}/enum`);
    const types = declared ?? inferTypes(schema);
    if (types === undefined) return undefined;
    const members = types.map((type) => this.typed(type, schema, path));
    return this.union(members, undefined);
  }

  private declaredTypes(schema: JsonSchemaObject): TypeName[] | undefined {
    const raw = schema['type'];
    const list = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw : undefined;
    if (list === undefined) return undefined;
    const types: TypeName[] = [];
    for (const t of list) {
      if (typeof t === 'string' && TYPE_NAMES.has(t) && !types.includes(t as TypeName))
        types.push(t as TypeName);
    }
    // `integer` is a subset of `number`: keep the wider one so the union stays minimal.
    if (types.includes('number') && types.includes('integer')) types.splice(types.indexOf('integer'), 1);
    // OpenAPI 3.0 leftovers the loader may not have normalised.
    if (schema['nullable'] === true && !types.includes('null')) types.push('null');
    return types;
  }

  private literals(values: readonly unknown[], types: TypeName[] | undefined, path: string): Node {
    const out: Literal[] = [];
    for (const value of values) {
      if (value !== null && typeof value === 'object') {
        this.warn(
          path,
          'unsupported_keyword',
          'object/array values in enum/const are not enforced by the generated validator; typed as unknown',
        );
        return UNKNOWN;
      }
      if (
        typeof value !== 'string' &&
        typeof value !== 'number' &&
        typeof value !== 'boolean' &&
        value !== null
      )
        continue;
      if (types !== undefined && !types.some((type) => literalMatches(value, type))) continue;
      if (!out.some((seen) => Object.is(seen, value) || seen === value)) out.push(value);
    }
    return out.length === 0 ? NEVER : { kind: 'literal', values: out };
  }

  private typed(type: TypeName, schema: JsonSchemaObject, path: string): Node {
    switch (type) {
      case 'null':
        return { kind: 'null' };
      case 'boolean':
        return { kind: 'boolean' };
      case 'string':
        return this.string(schema, path);
      case 'number':
      case 'integer':
        return number(schema, type === 'integer');
      case 'object':
        return this.object(schema, path);
      case 'array':
        return this.array(schema, path);
    }
  }

  private string(schema: JsonSchemaObject, path: string): Node {
    const format =
      typeof schema['format'] === 'string' && FORMATS.has(schema['format']) ? schema['format'] : undefined;
    const minLength = count(schema['minLength']);
    const maxLength = count(schema['maxLength']);
    let pattern: { source: string; flags: string } | undefined;
    if (typeof schema['pattern'] === 'string') {
      pattern = compilePattern(schema['pattern']);
      if (!pattern) {
        this.warn(
          `${path}/pattern`,
          'invalid_pattern',
          `pattern ${JSON.stringify(schema['pattern'])} is not a valid ECMAScript regular expression; not enforced`,
        );
      }
    }
    return {
      kind: 'string',
      ...(format !== undefined ? { format: format as StringFormat } : {}),
      ...(minLength !== undefined && minLength > 0 ? { minLength } : {}),
      ...(maxLength !== undefined ? { maxLength } : {}),
      ...(pattern ? { pattern } : {}),
    };
  }

  private object(schema: JsonSchemaObject, path: string): Node {
    const properties: PropertyNode[] = [];
    const required = new Set(
      Array.isArray(schema['required'])
        ? schema['required'].filter((r): r is string => typeof r === 'string')
        : [],
    );
    const declared = isObject(schema['properties']) ? schema['properties'] : {};
    for (const name of Object.keys(declared)) {
      const sub = declared[name];
      if (!isSchema(sub)) continue;
      properties.push({
        name,
        node: this.build(sub, `${path}/properties/${escapeToken(name)}`),
        required: required.has(name),
        doc: docOf(sub),
      });
    }
    let additional: 'allow' | 'deny' | Node = 'allow';
    const raw = schema['additionalProperties'];
    if (raw === false) additional = 'deny';
    else if (isObject(raw)) {
      const node = this.build(raw, `${path}/additionalProperties`);
      additional = node.kind === 'unknown' ? 'allow' : node.kind === 'never' ? 'deny' : node;
    }
    // patternProperties (not enforced) may legitimately match keys that additionalProperties would
    // reject; stay permissive rather than reject valid payloads.
    if (additional !== 'allow' && isObject(schema['patternProperties'])) additional = 'allow';
    // Required but undeclared: must be present, and (not being declared) additionalProperties
    // governs its value.
    const undeclared: Node = additional === 'allow' ? UNKNOWN : additional === 'deny' ? NEVER : additional;
    for (const name of required) {
      if (!Object.hasOwn(declared, name) || !isSchema(declared[name]))
        properties.push({ name, node: undeclared, required: true, doc: {} });
    }
    const minProperties = count(schema['minProperties']);
    const maxProperties = count(schema['maxProperties']);
    return {
      kind: 'object',
      properties,
      additional,
      ...(minProperties !== undefined && minProperties > 0 ? { minProperties } : {}),
      ...(maxProperties !== undefined ? { maxProperties } : {}),
    };
  }

  private array(schema: JsonSchemaObject, path: string): Node {
    const prefix: Node[] = [];
    let items: Node = UNKNOWN;
    const prefixItems = Array.isArray(schema['prefixItems'])
      ? { list: schema['prefixItems'], at: 'prefixItems' }
      : Array.isArray(schema['items'])
        ? { list: schema['items'], at: 'items' } // draft-04..07 tuple form
        : undefined;
    if (prefixItems) {
      prefixItems.list.forEach((member, i) => {
        prefix.push(isSchema(member) ? this.build(member, `${path}/${prefixItems.at}/${i}`) : UNKNOWN);
      });
      const rest = prefixItems.at === 'items' ? schema['additionalItems'] : schema['items'];
      const restAt = prefixItems.at === 'items' ? 'additionalItems' : 'items';
      if (isSchema(rest)) items = this.build(rest, `${path}/${restAt}`);
    } else if (isSchema(schema['items'])) {
      items = this.build(schema['items'], `${path}/items`);
    }
    const minItems = count(schema['minItems']);
    const maxItems = count(schema['maxItems']);
    return {
      kind: 'array',
      prefix,
      items,
      ...(minItems !== undefined && minItems > 0 ? { minItems } : {}),
      ...(maxItems !== undefined ? { maxItems } : {}),
      unique: schema['uniqueItems'] === true,
    };
  }

  private union(members: Node[], discriminator: Discriminator | undefined): Node {
    const flat: Node[] = [];
    for (const member of members) {
      if (member.kind === 'never') continue;
      if (member.kind === 'unknown') return UNKNOWN;
      if (member.kind === 'union' && !member.discriminator) flat.push(...member.members);
      else flat.push(member);
    }
    if (flat.length === 0) return NEVER;
    if (flat.length === 1 && flat[0]) return flat[0];
    return discriminator && flat.length === members.length
      ? { kind: 'union', members: flat, discriminator }
      : { kind: 'union', members: flat };
  }

  /**
   * `z.discriminatedUnion` needs every branch to be an object declaring a distinct literal at the
   * property, else zod throws or (worse) rejects payloads the plain union accepts; when that does not
   * hold (allOf-composed branches, non-literal values, unresolvable refs) a plain union is used.
   */
  private discriminator(
    schema: JsonSchemaObject,
    list: unknown[],
    members: Node[],
  ): Discriminator | undefined {
    const disc = schema['discriminator'];
    if (!isObject(disc) || typeof disc['propertyName'] !== 'string') return undefined;
    const property = disc['propertyName'];
    if (members.length < 2 || members.length !== list.length) return undefined;
    const seen = new Set<Literal>();
    const branches: Node[] = [];
    for (const member of members) {
      const branch = this.resolveObject(member);
      if (branch?.kind !== 'object') return undefined;
      const prop = branch.properties.find((p) => p.name === property);
      if (!prop?.required || prop.node.kind !== 'literal') return undefined;
      for (const value of prop.node.values) {
        if (seen.has(value)) return undefined;
        seen.add(value);
      }
      branches.push(branch);
    }
    return { property, branches };
  }

  private resolveObject(node: Node): Node | undefined {
    if (node.kind === 'object') return node;
    if (node.kind !== 'ref' || !this.ctx.resolve) return undefined;
    const target = this.ctx.resolve(node.key);
    if (!target) return undefined;
    // Inlined copy: its warnings were (or will be) reported where the named schema is declared.
    const { file, pointer } = splitSource(target.source);
    const quiet = new Builder({ warn: () => {} }, file, pointer);
    const built = quiet.build(target.schema, '');
    return built.kind === 'object' ? built : undefined;
  }
}

function literalMatches(value: Literal, type: TypeName): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    default:
      return false;
  }
}

/** Types implied by keywords when `type` is absent (OpenAPI authors routinely omit `type: object`). */
function inferTypes(schema: JsonSchemaObject): TypeName[] | undefined {
  const types: TypeName[] = [];
  if (OBJECT_KEYWORDS.some((k) => hasOwn(schema, k))) types.push('object');
  if (ARRAY_KEYWORDS.some((k) => hasOwn(schema, k))) types.push('array');
  if (STRING_KEYWORDS.some((k) => hasOwn(schema, k))) types.push('string');
  if (NUMBER_KEYWORDS.some((k) => hasOwn(schema, k))) types.push('number');
  if (types.length > 0 && schema['nullable'] === true) types.push('null');
  return types.length > 0 ? types : undefined;
}

function number(schema: JsonSchemaObject, integer: boolean): Node {
  let minimum = finite(schema['minimum']);
  let maximum = finite(schema['maximum']);
  let exclusiveMinimum = finite(schema['exclusiveMinimum']);
  let exclusiveMaximum = finite(schema['exclusiveMaximum']);
  // OpenAPI 3.0 boolean form, should the loader have left it.
  if (schema['exclusiveMinimum'] === true && minimum !== undefined) {
    exclusiveMinimum = minimum;
    minimum = undefined;
  }
  if (schema['exclusiveMaximum'] === true && maximum !== undefined) {
    exclusiveMaximum = maximum;
    maximum = undefined;
  }
  const multipleOf = finite(schema['multipleOf']);
  return {
    kind: 'number',
    integer,
    ...(minimum !== undefined ? { minimum } : {}),
    ...(maximum !== undefined ? { maximum } : {}),
    ...(exclusiveMinimum !== undefined ? { exclusiveMinimum } : {}),
    ...(exclusiveMaximum !== undefined ? { exclusiveMaximum } : {}),
    ...(multipleOf !== undefined && multipleOf > 0 ? { multipleOf } : {}),
  };
}

/** JSON Schema patterns are ECMA-262 with the `u` flag (as ajv does); fall back to no flag. */
function compilePattern(pattern: string): { source: string; flags: string } | undefined {
  for (const flags of ['u', '']) {
    try {
      return { source: new RegExp(pattern, flags).source, flags };
    } catch {
      // try the next flag set
    }
  }
  return undefined;
}

function intersection(parts: Node[]): Node {
  const flat: Node[] = [];
  for (const part of parts) {
    if (part.kind === 'never') return NEVER;
    if (part.kind === 'unknown') continue;
    if (part.kind === 'intersection') flat.push(...part.members);
    else flat.push(part);
  }
  if (flat.length === 0) return UNKNOWN;
  if (flat.length === 1 && flat[0]) return flat[0];
  return { kind: 'intersection', members: flat };
}

/** `file#/pointer` → parts; a source without `#` is a file with an empty pointer. */
export function splitSource(source: string): { file: string; pointer: string } {
  const hash = source.indexOf('#');
  return hash < 0
    ? { file: source, pointer: '' }
    : { file: source.slice(0, hash), pointer: source.slice(hash + 1) };
}

/** Builds the intermediate form of `schema`; `source` is `file#/pointer` of the schema. */
export function buildNode(schema: JsonSchema, source: string, ctx: BuildContext): Node {
  const { file, pointer } = splitSource(source);
  return new Builder(ctx, file, pointer).build(schema, '');
}
