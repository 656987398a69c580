/**
 * JSON Schema (normalised, see generator/model.ts) → TypeScript type text and zod v4 text.
 *
 * Both renderers walk one intermediate form (ir.ts), so a type and its validator always agree.
 * Diagnostics (unsupported keywords, unresolvable refs, invalid patterns) are reported by the zod
 * renderers only — the validator is what does not enforce them — so rendering a schema's type and
 * its validator reports each finding once. Decisions and known differences: docs/schema-mapping.md.
 */
import type { Diagnostic } from '../errors.js';
import type { JsonSchema, SourcedSchema } from '../model.js';
import { type BuildContext, buildNode, docOf } from './ir.js';
import { renderDoc } from './jsdoc.js';
import { objectBody, renderType } from './typescript.js';
import { renderZod } from './zod.js';

export { createIdentifierAllocator, type IdentifierAllocator, propertyKey } from './identifiers.js';

export interface SchemaContext {
  /** TS identifier for a named schema key ('#/schemas/<key>'), e.g. 'Pet'. */
  typeName(key: string): string;
  /** Identifier of its zod schema const, e.g. 'PetSchema'. */
  schemaName(key: string): string;
  /** Collect a non-fatal diagnostic (unsupported keyword, etc.), pointer = source + path inside. */
  warn(diagnostic: Diagnostic): void;
  /**
   * Optional: the named schema for a key. Lets `oneOf`/`anyOf` + `discriminator` over `$ref` branches
   * become `z.discriminatedUnion` (the branch objects are inlined there); without it such unions are
   * plain `z.union`s, which accept the same payloads.
   */
  resolve?(key: string): SourcedSchema | undefined;
  /**
   * Optional: true when the zod const of `key` is already initialised at the point of use (the emitter
   * writes declarations in dependency order); such refs are written as the bare name instead of
   * `z.lazy(() => XSchema)`. Cycles must still answer false.
   */
  isDeclared?(key: string): boolean;
}

const quiet = (ctx: SchemaContext): BuildContext => ({
  warn: () => {},
  ...(ctx.resolve ? { resolve: (key: string) => ctx.resolve?.(key) } : {}),
});

const loud = (ctx: SchemaContext): BuildContext => ({
  warn: (diagnostic) => ctx.warn(diagnostic),
  ...(ctx.resolve ? { resolve: (key: string) => ctx.resolve?.(key) } : {}),
});

/** Declaration text for a named schema: JSDoc + `export interface X {…}` or `export type X = …;`. */
export function renderTypeDeclaration(name: string, schema: SourcedSchema, ctx: SchemaContext): string {
  const node = buildNode(schema.schema, schema.source, quiet(ctx));
  const doc = renderDoc(docOf(schema.schema), '');
  if (node.kind === 'object')
    return `${doc}export interface ${name} {${objectBody(node.properties, node.additional, ctx, '')}}`;
  return `${doc}export type ${name} = ${renderType(node, ctx)};`;
}

/** A TS type expression for an inline schema. */
export function renderTypeExpression(schema: JsonSchema, source: string, ctx: SchemaContext): string {
  return renderType(buildNode(schema, source, quiet(ctx)), ctx);
}

/** Declaration text: `export const XSchema: z.ZodType<X> = …;` (typed against the interface, not z.infer). */
export function renderZodDeclaration(
  name: string,
  typeName: string,
  schema: SourcedSchema,
  ctx: SchemaContext,
): string {
  const node = buildNode(schema.schema, schema.source, loud(ctx));
  return `export const ${name}: z.ZodType<${typeName}> = ${renderZod(node, ctx)};`;
}

export function renderZodExpression(schema: JsonSchema, source: string, ctx: SchemaContext): string {
  return renderZod(buildNode(schema, source, loud(ctx)), ctx);
}
