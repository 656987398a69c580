/**
 * Intermediate form → `zod/mini` expression text (`--zod mini`). Same validation as zod.ts, node for
 * node, in mini's functional form: wrappers are functions (`z.optional(x)`, `z.nullable(x)`,
 * `z.intersection(a, b)`, `z.catchall(o, x)`) and refinements are checks
 * (`.check(z.minLength(1), z.refine(…))`). Mini's schemas carry no methods, so a bundler drops what
 * a module does not call: a Petstore receiver bundles to a fraction of classic zod's size. Keep the
 * two renderers in step: every case in `__fixtures__/cases.ts` runs against both.
 */
import type { SourcedSchema } from '../model.js';
import { propertyKey, stringLiteral } from './identifiers.js';
import { type BuildContext, buildNode, type Node, type PropertyNode } from './ir.js';
import { mergeAllOfIn } from './merge-allof.js';
import { list, num, plural, SAFE, STEP, TIME_PATTERN } from './render-text.js';
import { literalText } from './typescript.js';
import { type SchemaNames, URI_PATTERN } from './zod.js';

/** The `uri` check (zod.ts's URI_SCHEMA); `URI_SCHEMA_MINI` is the whole schema's text. */
const URI_CHECK = `z.regex(${URI_PATTERN}, 'Invalid URI')`;
export const URI_SCHEMA_MINI = `z.string().check(${URI_CHECK})`;

/** `base.check(a, b)`, or `base` when there is nothing to check. */
function withChecks(base: string, checks: readonly string[]): string {
  return checks.length === 0 ? base : `${base}.check(${checks.join(', ')})`;
}

/** The base schema and the checks a format needs (zod.ts's formatBase, as mini text). */
function formatBase(format: Extract<Node, { kind: 'string' }>['format']): [string, string[]] {
  switch (format) {
    case 'date-time':
      return ['z.iso.datetime({ offset: true })', []];
    case 'date':
      return ['z.iso.date()', []];
    case 'time':
      // z.iso.time() is ISO 8601 local time (no offset), which rejects every RFC 3339 full-time.
      return ['z.string()', [`z.regex(${TIME_PATTERN})`]];
    case 'email':
      return ['z.email({ pattern: z.regexes.rfc5322Email })', []];
    case 'uri':
      return ['z.string()', [URI_CHECK]];
    case 'uuid':
      return ['z.guid()', []];
    case 'ipv4':
      return ['z.ipv4()', []];
    case 'ipv6':
      return ['z.ipv6()', []];
    case 'hostname':
      return ['z.hostname()', []];
    default:
      return ['z.string()', []];
  }
}

export function renderZodMini(node: Node, names: SchemaNames, indent = ''): string {
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
      const [base, checks] = formatBase(node.format);
      // JSON Schema counts code points; z.minLength counts UTF-16 units (an emoji is 2).
      if (node.minLength !== undefined)
        checks.push(
          `z.refine((s) => [...s].length >= ${node.minLength}, 'Too small: expected at least ${plural(node.minLength, 'character')}')`,
        );
      if (node.maxLength !== undefined)
        checks.push(
          `z.refine((s) => [...s].length <= ${node.maxLength}, 'Too big: expected at most ${plural(node.maxLength, 'character')}')`,
        );
      if (node.pattern) checks.push(`z.regex(/${node.pattern.source}/${node.pattern.flags})`);
      return withChecks(base, checks);
    }
    case 'number': {
      const lower = node.minimum ?? node.exclusiveMinimum;
      const upper = node.maximum ?? node.exclusiveMaximum;
      // z.int() only accepts safe integers; JSON Schema `integer` has no such bound (see zod.ts).
      const safe = lower !== undefined && upper !== undefined && lower >= -SAFE && upper <= SAFE;
      const checks: string[] = [];
      const base = node.integer && safe ? 'z.int()' : 'z.number()';
      if (node.integer && !safe) checks.push("z.refine(Number.isInteger, 'Expected an integer')");
      if (node.minimum !== undefined) checks.push(`z.gte(${num(node.minimum)})`);
      if (node.exclusiveMinimum !== undefined) checks.push(`z.gt(${num(node.exclusiveMinimum)})`);
      if (node.maximum !== undefined) checks.push(`z.lte(${num(node.maximum)})`);
      if (node.exclusiveMaximum !== undefined) checks.push(`z.lt(${num(node.exclusiveMaximum)})`);
      if (node.multipleOf !== undefined) {
        // Integer divisors: exact `%`; fractional ones: zod's decimal-aware check (see zod.ts).
        checks.push(
          Number.isInteger(node.multipleOf)
            ? `z.refine((n) => n % ${num(node.multipleOf)} === 0, 'Invalid number: must be a multiple of ${num(node.multipleOf)}')`
            : `z.multipleOf(${num(node.multipleOf)})`,
        );
      }
      return withChecks(base, checks);
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
      if (node.discriminator) {
        const branches = node.discriminator.branches.map((branch) => renderZodMini(branch, names, inner));
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
        return `z.nullable(${renderZodMini(only, names, indent)})`;
      return list(
        'z.union([',
        node.members.map((member) => renderZodMini(member, names, inner)),
        '])',
        indent,
      );
    }
    case 'intersection': {
      // Left-nested like classic's `a.and(b).and(c)`: every member must accept the payload (allOf).
      const [head, ...rest] = node.members.map((member) => renderZodMini(member, names, indent));
      return rest.reduce((left, right) => `z.intersection(${left}, ${right})`, head ?? 'z.unknown()');
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
  let out = `${factory}(${shape(node.properties, names, indent)})`;
  if (typeof node.additional === 'object')
    out = `z.catchall(${out}, ${renderZodMini(node.additional, names, indent)})`;
  const checks: string[] = [];
  if (node.minProperties !== undefined)
    checks.push(
      `z.refine((o) => Object.keys(o).length >= ${node.minProperties}, 'Too small: expected at least ${plural(node.minProperties, 'property', 'properties')}')`,
    );
  if (node.maxProperties !== undefined)
    checks.push(
      `z.refine((o) => Object.keys(o).length <= ${node.maxProperties}, 'Too big: expected at most ${plural(node.maxProperties, 'property', 'properties')}')`,
    );
  return withChecks(out, checks);
}

function shape(properties: readonly PropertyNode[], names: SchemaNames, indent: string): string {
  if (properties.length === 0) return '{}';
  const inner = indent + STEP;
  const lines = properties.map((property) => {
    const value = renderZodMini(property.node, names, inner);
    return `${inner}${propertyKey(property.name)}: ${property.required ? value : `z.optional(${value})`},`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function arraySchema(node: Extract<Node, { kind: 'array' }>, names: SchemaNames, indent: string): string {
  const inner = indent + STEP;
  const checks: string[] = [];
  if (node.prefix.length === 0) {
    if (node.minItems !== undefined) checks.push(`z.minLength(${node.minItems})`);
    if (node.maxItems !== undefined) checks.push(`z.maxLength(${node.maxItems})`);
    if (node.unique) checks.push(UNIQUE_CHECK);
    return withChecks(`z.array(${renderZodMini(node.items, names, indent)})`, checks);
  }
  const required = node.minItems ?? 0;
  const elements = node.prefix.map((member, i) => {
    if (i >= required) return `z.optional(${renderZodMini(member, names, inner)})`;
    // A missing element parses as `undefined`, which z.unknown() accepts: require a value (see zod.ts).
    if (member.kind === 'unknown')
      return "z.unknown().check(z.refine((v) => v !== undefined, { error: 'Invalid input: expected a value', abort: true }))";
    return renderZodMini(member, names, inner);
  });
  const rest = node.items.kind === 'never' ? '' : `, ${renderZodMini(node.items, names, indent)}`;
  const out = `${list('z.tuple([', elements, ']', indent)}${rest})`;
  const min = node.minItems;
  if (min !== undefined && min > node.prefix.length)
    checks.push(`z.refine((a) => a.length >= ${min}, 'Too small: expected at least ${plural(min, 'item')}')`);
  if (node.maxItems !== undefined)
    checks.push(
      `z.refine((a) => a.length <= ${node.maxItems}, 'Too big: expected at most ${plural(node.maxItems, 'item')}')`,
    );
  if (node.unique) checks.push(UNIQUE_CHECK);
  return withChecks(out, checks);
}

/** uniqueItems compares JSON texts (see zod.ts's uniqueCheck). */
const UNIQUE_CHECK =
  "z.refine((a) => new Set(a.map((v) => JSON.stringify(v))).size === a.length, 'Expected unique items')";

/**
 * `export const XSchema: z.ZodMiniType<X> = z.lazy(() => …);`: the zod.ts declaration (typed against
 * the interface, body deferred to the first parse) with a mini body. `ctx` is the module's
 * SchemaContext (structurally: names, warn, resolve).
 */
export function renderZodMiniDeclaration(
  name: string,
  typeName: string,
  schema: SourcedSchema,
  ctx: BuildContext & Pick<SchemaNames, 'schemaName'>,
): string {
  const build: BuildContext = {
    warn: (diagnostic) => ctx.warn(diagnostic),
    ...(ctx.resolve ? { resolve: (key: string) => ctx.resolve?.(key) } : {}),
  };
  const node = mergeAllOfIn(buildNode(schema.schema, schema.source, build), ctx);
  const body = renderZodMini(node, { schemaName: (key) => ctx.schemaName(key), isDeclared: () => true }, '');
  return `export const ${name}: z.ZodMiniType<${typeName}> = z.lazy(() => ${body});`;
}
