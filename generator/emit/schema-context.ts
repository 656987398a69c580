/**
 * The SchemaContext the schema renderers call back into: names come from this module's allocation,
 * diagnostics are collected per contract, and `isDeclared` follows the order schemas.ts declares
 * consts in, so only forward references and cycles pay for `z.lazy`.
 */
import type { Diagnostic } from '../errors.js';
import type { ContractModel, JsonSchema } from '../model.js';
import type { SchemaContext } from '../schema/index.js';
import { refKey } from '../schema/ir.js';
import type { ZodHelper } from '../schema/own-keys.js';
import { compareStrings, type ModuleNames } from './names.js';

export interface ModuleSchemaContext extends SchemaContext {
  /** Marks the const of `key` as initialised (call after writing its declaration). */
  declare(key: string): void;
  /** Helpers the rendered schemas use, for schemas.ts to declare. */
  readonly helpers: ReadonlySet<ZodHelper>;
}

export function createSchemaContext(
  model: ContractModel,
  names: ModuleNames,
  diagnostics: Diagnostic[],
): ModuleSchemaContext {
  const declared = new Set<string>();
  const helpers = new Set<ZodHelper>();
  const owns = new Map<string, boolean>();
  const missing = (key: string): never => {
    // The loader guarantees every model-local ref has a target; reaching this is a generator bug.
    throw new Error(`schema '${key}' is referenced but not in the contract's schema table`);
  };
  return {
    typeName: (key) => names.types.get(key) ?? missing(key),
    schemaName: (key) => names.schemas.get(key) ?? missing(key),
    warn: (diagnostic) => diagnostics.push(diagnostic),
    resolve: (key) => (Object.hasOwn(model.schemas, key) ? model.schemas[key] : undefined),
    isDeclared: (key) => declared.has(key),
    declare: (key) => {
      declared.add(key);
    },
    helpers,
    use: (helper) => {
      helpers.add(helper);
    },
    ownsProto: (key) => ownsProto(model, key, owns),
  };
}

/**
 * Whether the value a named schema parses to may have an own `__proto__`: it declares one, or a
 * schema it is composed of (`allOf`/`anyOf`/`oneOf`, `$ref`) does. A cycle counts as no.
 */
function ownsProto(model: ContractModel, key: string, memo: Map<string, boolean>): boolean {
  const known = memo.get(key);
  if (known !== undefined) return known;
  memo.set(key, false);
  const composed = (schema: unknown): boolean => {
    if (typeof schema !== 'object' || schema === null) return false;
    const s = schema as Record<string, unknown>;
    const properties = s.properties;
    if (typeof properties === 'object' && properties !== null && Object.hasOwn(properties, '__proto__'))
      return true;
    const ref = typeof s.$ref === 'string' ? refKey(s.$ref) : undefined;
    if (ref !== undefined && Object.hasOwn(model.schemas, ref) && ownsProto(model, ref, memo)) return true;
    return ['allOf', 'anyOf', 'oneOf'].some((k) => Array.isArray(s[k]) && (s[k] as unknown[]).some(composed));
  };
  const result = Object.hasOwn(model.schemas, key) && composed(model.schemas[key]?.schema);
  memo.set(key, result);
  return result;
}

/** Model-local refs inside a schema, in document order. */
export function refsOf(schema: JsonSchema, out: Set<string> = new Set()): Set<string> {
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
    } else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) {
        if (k === '$ref' && typeof v === 'string') {
          const key = refKey(v);
          if (key !== undefined) out.add(key);
        } else if (k !== 'examples' && k !== 'example' && k !== 'default' && k !== 'const' && k !== 'enum') {
          walk(v);
        }
      }
    }
  };
  walk(schema);
  return out;
}

/**
 * Named schema keys in dependency order (dependencies first), ties broken by key so the order is
 * stable. Cycles are cut where they are met; those refs stay lazy.
 */
export function declarationOrder(model: ContractModel): string[] {
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (key: string): void => {
    if (state.has(key) || !Object.hasOwn(model.schemas, key)) return;
    state.set(key, 'visiting');
    const deps = [...refsOf((model.schemas[key] as { schema: JsonSchema }).schema)].sort(compareStrings);
    for (const dep of deps) visit(dep);
    state.set(key, 'done');
    order.push(key);
  };
  for (const key of Object.keys(model.schemas).sort(compareStrings)) visit(key);
  return order;
}
