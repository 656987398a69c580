/**
 * The top-level fields an event's payload schema declares (through `$ref`, `allOf`, `oneOf`,
 * `anyOf`), for contracts whose receivers tell events apart by schema: the descriptor lists them
 * so that, of several schemas accepting a body, the one declaring most of its fields is chosen.
 */
import type { ContractModel, EventModel, JsonSchema } from '../model.js';

/**
 * The groups of events a receiver tells apart by payload schema: every event with the `schema`
 * selector (or a body selector's schema fallback), else the events that share a type value.
 */
export function schemaGroups(model: ContractModel): EventModel[][] {
  const { selector, events } = model;
  if (events.length < 2 || selector.kind === 'header') return [];
  if (selector.kind === 'schema' || (selector.kind === 'body' && selector.fallback === 'schema'))
    return [[...events]];
  const byValue = new Map<string, EventModel[]>();
  for (const event of events) {
    const value = event.match?.body ?? event.name;
    byValue.set(value, [...(byValue.get(value) ?? []), event]);
  }
  return [...byValue.values()].filter((group) => group.length > 1);
}

/** True when the contract's receivers select some events by payload schema. */
export function selectsBySchema(model: ContractModel): boolean {
  return schemaGroups(model).length > 0;
}

export function payloadFields(model: ContractModel, event: EventModel): string[] {
  const fields = new Set<string>();
  const seen = new Set<string>();
  const visit = (schema: JsonSchema | undefined, depth: number): void => {
    if (schema === undefined || typeof schema === 'boolean' || depth > 32) return;
    const ref = schema.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/schemas/')) {
      const key = ref.slice('#/schemas/'.length);
      if (seen.has(key)) return;
      seen.add(key);
      visit(model.schemas[key]?.schema, depth + 1);
    }
    const properties = schema.properties;
    if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
      for (const name of Object.keys(properties)) fields.add(name);
    }
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
      const branches = schema[key];
      if (Array.isArray(branches)) for (const branch of branches) visit(branch as JsonSchema, depth + 1);
    }
  };
  visit(event.payload.schema, 0);
  return [...fields];
}
