/**
 * Intermediate form → zod v4 expression text. Principles:
 * - never reject what the JSON Schema accepts: objects keep and allow unknown keys (`z.looseObject`)
 *   unless `additionalProperties` says otherwise; unsupported keywords are reported, not guessed;
 * - never transform: no `.default()`, no coercion — the handler sees the payload that was signed;
 * - references are `z.lazy(() => XSchema)` so declaration order and cycles do not matter (a lazy is
 *   resolved once, on first parse, and then costs one indirection);
 * - properties named like `Object.prototype` members go through `withOwnKeys` (see own-keys.ts).
 */
import { propertyKey, stringLiteral } from './escape.js';
import type { Node, PropertyNode } from './ir.js';
import { INHERITED_KEYS, type ZodHelper } from './own-keys.js';
import { list, num, plural, SAFE, STEP, TIME_PATTERN } from './render-text.js';
import { literalText, renderType } from './typescript.js';

export interface SchemaNames {
  schemaName(key: string): string;
  /** When it returns true for a key, the const is already initialised and is referenced directly. */
  isDeclared?(key: string): boolean;
  /** TS type of a named schema: types what `withOwnKeys` returns (`any` without it). */
  typeName?(key: string): string;
  /** Told when the text uses a helper the module must declare (own-keys.ts). */
  use?(helper: ZodHelper): void;
  /** True when a named schema's parsed value may carry an own `__proto__` (intersections re-add it). */
  ownsProto?(key: string): boolean;
}

const inherited = (property: PropertyNode): boolean => INHERITED_KEYS.has(property.name);

/** True when the value parsed by `node` may carry an own `__proto__` key. */
function mayOwnProto(node: Node, names: SchemaNames): boolean {
  switch (node.kind) {
    case 'object':
      return node.properties.some((p) => p.name === '__proto__');
    case 'ref':
      return names.ownsProto?.(node.key) ?? false;
    case 'union':
    case 'intersection':
      return node.members.some((member) => mayOwnProto(member, names));
    default:
      return false;
  }
}

/**
 * RFC 3986 URI (JSON Schema `uri`), checked by characters: a scheme, `:`, then only URI characters
 * (unreserved, sub-delims, `:@/?[]`, `%` + two hex digits) with at most one `#`. ASCII only, no
 * spaces; authority and IP-literal structure are not parsed, so it accepts a superset of what
 * ajv-formats accepts (ajv-parity.test.ts). Not `z.url()`: that rewrites the value (trims it and drops
 * tabs and newlines), accepts what WHATWG URL parsing repairs (spaces, `\`, non-ASCII), and costs
 * a URL parse per string (over half of validating a GitHub payload).
 */
export const URI_PATTERN =
  '/^[A-Za-z][A-Za-z\\d+.-]*:[\\w\\-.~!$&\\x27()*+,;=:@\\/?[\\]]*(?:%[\\dA-Fa-f]{2}[\\w\\-.~!$&\\x27()*+,;=:@\\/?[\\]]*)*(?:#[\\w\\-.~!$&\\x27()*+,;=:@\\/?]*(?:%[\\dA-Fa-f]{2}[\\w\\-.~!$&\\x27()*+,;=:@\\/?]*)*)?$/';

/** The `uri` schema's text (emit/shared-leaves.ts builds it once per module). */
export const URI_SCHEMA = `z.string().regex(${URI_PATTERN}, 'Invalid URI')`;

function formatBase(format: Extract<Node, { kind: 'string' }>['format']): string {
  switch (format) {
    case 'date-time':
      return 'z.iso.datetime({ offset: true })';
    case 'date':
      return 'z.iso.date()';
    case 'time':
      // z.iso.time() is ISO 8601 local time (no offset), which rejects every RFC 3339 full-time.
      return `z.string().regex(${TIME_PATTERN})`;
    case 'email':
      // zod's default email pattern rejects valid addresses such as `a!b@example.com`.
      return 'z.email({ pattern: z.regexes.rfc5322Email })';
    case 'uri':
      return URI_SCHEMA;
    case 'uuid':
      // JSON Schema `uuid` is RFC 4122 syntax with any version/variant bits: z.guid(), not z.uuid().
      return 'z.guid()';
    case 'ipv4':
      return 'z.ipv4()';
    case 'ipv6':
      return 'z.ipv6()';
    case 'hostname':
      return 'z.hostname()';
    default:
      return 'z.string()';
  }
}

export function renderZod(node: Node, names: SchemaNames, indent = ''): string {
  const inner = indent + STEP;
  switch (node.kind) {
    case 'unknown':
      return 'z.unknown()';
    case 'never':
      return 'z.never()';
    case 'ref': {
      const name = names.schemaName(node.key);
      return names.isDeclared?.(node.key) ? name : `z.lazy(() => ${name})`;
    }
    case 'literal': {
      const [first] = node.values;
      if (node.values.length === 1) return `z.literal(${literalText(first ?? null)})`;
      if (node.values.every((v) => typeof v === 'string'))
        return list('z.enum([', node.values.map(literalText), '])', indent);
      return list('z.literal([', node.values.map(literalText), '])', indent);
    }
    case 'string': {
      let out = formatBase(node.format);
      // JSON Schema counts code points; zod's .min/.max count UTF-16 units (an emoji is 2).
      if (node.minLength !== undefined)
        out += `.refine((s) => [...s].length >= ${node.minLength}, 'Too small: expected at least ${plural(node.minLength, 'character')}')`;
      if (node.maxLength !== undefined)
        out += `.refine((s) => [...s].length <= ${node.maxLength}, 'Too big: expected at most ${plural(node.maxLength, 'character')}')`;
      if (node.pattern) out += `.regex(/${node.pattern.source}/${node.pattern.flags})`;
      return out;
    }
    case 'number': {
      const lower = node.minimum ?? node.exclusiveMinimum;
      const upper = node.maximum ?? node.exclusiveMaximum;
      // z.int() only accepts safe integers; JSON Schema `integer` has no such bound, so the safe form
      // is used only when the schema's own bounds keep values inside ±2^53.
      const safe = lower !== undefined && upper !== undefined && lower >= -SAFE && upper <= SAFE;
      let out = !node.integer
        ? 'z.number()'
        : safe
          ? 'z.int()'
          : "z.number().refine(Number.isInteger, 'Expected an integer')";
      if (node.minimum !== undefined) out += `.gte(${num(node.minimum)})`;
      if (node.exclusiveMinimum !== undefined) out += `.gt(${num(node.exclusiveMinimum)})`;
      if (node.maximum !== undefined) out += `.lte(${num(node.maximum)})`;
      if (node.exclusiveMaximum !== undefined) out += `.lt(${num(node.exclusiveMaximum)})`;
      if (node.multipleOf !== undefined) {
        // Integer divisors: exact `%` (zod's float-tolerant check accepts e.g. 5e-324 as a multiple of 1).
        // Fractional divisors: zod's decimal-aware check (0.3 is a multiple of 0.1; plain `%` says no).
        out += Number.isInteger(node.multipleOf)
          ? `.refine((n) => n % ${num(node.multipleOf)} === 0, 'Invalid number: must be a multiple of ${num(node.multipleOf)}')`
          : `.multipleOf(${num(node.multipleOf)})`;
      }
      return out;
    }
    case 'boolean':
      return 'z.boolean()';
    case 'null':
      return 'z.null()';
    case 'object':
      return objectSchema(node, names, indent);
    case 'array':
      return arraySchema(node, names, indent);
    case 'union': {
      // A withOwnKeys branch is not a zod object, which z.discriminatedUnion requires.
      const discriminable =
        node.discriminator !== undefined &&
        !INHERITED_KEYS.has(node.discriminator.property) &&
        !node.discriminator.branches.some((b) => b.kind === 'object' && b.properties.some(inherited));
      if (node.discriminator && discriminable) {
        const branches = node.discriminator.branches.map((branch) => renderZod(branch, names, inner));
        return list(
          `z.discriminatedUnion(${stringLiteral(node.discriminator.property)}, [`,
          branches,
          '])',
          indent,
        );
      }
      const nonNull = node.members.filter((member) => member.kind !== 'null');
      const [only] = nonNull;
      if (only && nonNull.length === 1 && node.members.length === 2)
        return `${renderZod(only, names, indent)}.nullable()`;
      return list(
        'z.union([',
        node.members.map((member) => renderZod(member, names, inner)),
        '])',
        indent,
      );
    }
    case 'intersection': {
      // z.intersection parses the input against every member and merges the results, which is
      // exactly allOf: a payload passes when it is valid for all members.
      const [head, ...rest] = node.members.map((member) => renderZod(member, names, indent));
      const merged = `${head ?? 'z.unknown()'}${rest.map((member) => `.and(${member})`).join('')}`;
      // z.intersection merges its members' values and drops an own `__proto__` while doing so.
      if (!mayOwnProto(node, names)) return merged;
      names.use?.('keepOwnProto');
      return `keepOwnProto(${merged})`;
    }
  }
}

function objectSchema(node: Extract<Node, { kind: 'object' }>, names: SchemaNames, indent: string): string {
  const factory =
    node.additional === 'allow'
      ? 'z.looseObject'
      : node.additional === 'deny'
        ? 'z.strictObject'
        : 'z.object';
  const own = node.properties.filter(inherited);
  const inner = indent + STEP;
  const at = own.length > 0 ? inner : indent;
  let out = `${factory}(${shape(
    node.properties.filter((p) => !inherited(p)),
    names,
    at,
  )})`;
  if (typeof node.additional === 'object') out += `.catchall(${renderZod(node.additional, names, at)})`;
  if (own.length > 0) {
    names.use?.('withOwnKeys');
    const keys = own.map(
      (p) =>
        `${inner}${STEP}[${stringLiteral(p.name)}, ${renderZod(p.node, names, inner + STEP)}, ${p.required}],`,
    );
    // The property docs are in types.ts already; the type argument only needs the shape.
    const bare = { ...node, properties: node.properties.map((p) => ({ ...p, doc: {} })) };
    const type = names.typeName ? renderType(bare, { typeName: names.typeName }, indent) : 'any';
    out = `withOwnKeys<${type}>(\n${inner}${out},\n${inner}[\n${keys.join('\n')}\n${inner}],\n${indent})`;
  }
  if (node.minProperties !== undefined)
    out += `.refine((o) => Object.keys(o).length >= ${node.minProperties}, 'Too small: expected at least ${plural(node.minProperties, 'property', 'properties')}')`;
  if (node.maxProperties !== undefined)
    out += `.refine((o) => Object.keys(o).length <= ${node.maxProperties}, 'Too big: expected at most ${plural(node.maxProperties, 'property', 'properties')}')`;
  return out;
}

function shape(properties: readonly PropertyNode[], names: SchemaNames, indent: string): string {
  if (properties.length === 0) return '{}';
  const inner = indent + STEP;
  const lines = properties.map((property) => {
    const value = renderZod(property.node, names, inner);
    return `${inner}${propertyKey(property.name)}: ${value}${property.required ? '' : '.optional()'},`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function arraySchema(node: Extract<Node, { kind: 'array' }>, names: SchemaNames, indent: string): string {
  const inner = indent + STEP;
  if (node.prefix.length === 0) {
    let out = `z.array(${renderZod(node.items, names, indent)})`;
    if (node.minItems !== undefined) out += `.min(${node.minItems})`;
    if (node.maxItems !== undefined) out += `.max(${node.maxItems})`;
    return out + uniqueCheck(node.unique);
  }
  const required = node.minItems ?? 0;
  const elements = node.prefix.map((member, i) => {
    if (i >= required) return `${renderZod(member, names, inner)}.optional()`;
    // A missing element is parsed as `undefined`, which z.unknown() accepts (and the output array is
    // padded, so a length check on the output would not see it): require a value explicitly. The
    // issue aborts, because z.intersection throws (instead of failing) when a side whose issues are all
    // non-aborting outputs a different (padded) array than the other side.
    if (member.kind === 'unknown')
      return "z.unknown().refine((v) => v !== undefined, { error: 'Invalid input: expected a value', abort: true })";
    return renderZod(member, names, inner);
  });
  const rest = node.items.kind === 'never' ? '' : `, ${renderZod(node.items, names, indent)}`;
  let out = `${list('z.tuple([', elements, ']', indent)}${rest})`;
  // Tuples have no .min/.max; the optional elements above already allow shorter arrays.
  const min = node.minItems;
  if (min !== undefined && min > node.prefix.length)
    out += `.refine((a) => a.length >= ${min}, 'Too small: expected at least ${plural(min, 'item')}')`;
  if (node.maxItems !== undefined)
    out += `.refine((a) => a.length <= ${node.maxItems}, 'Too big: expected at most ${plural(node.maxItems, 'item')}')`;
  return out + uniqueCheck(node.unique);
}

/**
 * uniqueItems compares JSON texts: exact for primitives; two equal objects written with different key
 * orders count as distinct, so such duplicates are accepted (permissive, never a false rejection).
 */
function uniqueCheck(unique: boolean): string {
  if (!unique) return '';
  return ".refine((a) => new Set(a.map((v) => JSON.stringify(v))).size === a.length, 'Expected unique items')";
}
