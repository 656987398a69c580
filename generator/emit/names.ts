/**
 * Identifiers of one generated module, allocated once so every emitted file agrees: a type name and
 * a zod const per named schema, and per event either the named type its payload `$ref`s or an
 * inline `<EventPascal>Payload`. Module-level names are reserved first so schemas cannot shadow them.
 */
import type { ContractModel, EventModel, JsonSchema } from '../model.js';
import { createIdentifierAllocator } from '../schema/identifiers.js';
import { refKey } from '../schema/ir.js';
import { ZOD_HELPERS } from '../schema/own-keys.js';

/** Names every generated module declares itself (see emit/*.ts). */
export const MODULE_NAMES = [
  'Events',
  'EventName',
  'eventSchemas',
  'eventValidators',
  'ClientMessages',
  'ClientMessageName',
  'clientMessageSchemas',
  'clientMessageFixtures',
  'contract',
  'fixtures',
  'createSender',
  'createReceiver',
  ...ZOD_HELPERS,
] as const;

export interface EventNames {
  readonly event: EventModel;
  /** Payload type name (a named schema's type when the payload is a plain `$ref`). */
  readonly type: string;
  /** Payload zod const name. */
  readonly schema: string;
  /** True when the payload is declared inline and this module emits `<type>`/`<schema>` for it. */
  readonly inline: boolean;
}

export interface ModuleNames {
  /** Named schema key → TS type name. */
  readonly types: ReadonlyMap<string, string>;
  /** Named schema key → zod const name. */
  readonly schemas: ReadonlyMap<string, string>;
  /** In model order (sorted by event name). */
  readonly events: readonly EventNames[];
  /** `model.received` (messages clients send the application), in model order; empty without. */
  readonly received: readonly EventNames[];
}

/** Keywords that do not change what a `$ref` payload accepts. */
const ANNOTATIONS = new Set([
  '$ref',
  'description',
  'title',
  'summary',
  'examples',
  'example',
  '$comment',
  'deprecated',
]);

/** The named schema an event payload is an alias of, if it is a plain `$ref`. */
export function aliasKey(schema: JsonSchema, model: ContractModel): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const key = typeof schema.$ref === 'string' ? refKey(schema.$ref) : undefined;
  if (key === undefined || !Object.hasOwn(model.schemas, key)) return undefined;
  return Object.keys(schema).every((k) => ANNOTATIONS.has(k)) ? key : undefined;
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function allocateNames(model: ContractModel): ModuleNames {
  const ids = createIdentifierAllocator();
  for (const name of MODULE_NAMES)
    ids.allocate(name, name[0] === name[0]?.toUpperCase() ? 'pascal' : 'camel');
  const types = new Map<string, string>();
  const schemas = new Map<string, string>();
  for (const key of Object.keys(model.schemas).sort(compareStrings)) {
    const type = ids.allocate(key, 'pascal');
    types.set(key, type);
    schemas.set(key, ids.allocate(type, 'pascal', 'Schema'));
  }
  const name =
    (suffix: string) =>
    (event: EventModel): EventNames => {
      const alias = aliasKey(event.payload.schema, model);
      if (alias !== undefined) {
        return { event, type: types.get(alias) ?? '', schema: schemas.get(alias) ?? '', inline: false };
      }
      const type = ids.allocate(event.name, 'pascal', suffix);
      return { event, type, schema: ids.allocate(type, 'pascal', 'Schema'), inline: true };
    };
  const events = model.events.map(name('Payload'));
  // A client message's type says which way it goes (`PingMessage`), also beside an event `ping`.
  // A message used both ways with the same body is one type (the event's) in both maps.
  const byName = new Map(events.map((names) => [names.event.name, names]));
  const received = (model.received ?? []).map((message) => {
    const same = byName.get(message.name);
    if (
      same !== undefined &&
      message.direction === 'both' &&
      JSON.stringify(same.event.payload.schema) === JSON.stringify(message.payload.schema)
    ) {
      return { ...same, event: message, inline: false };
    }
    return name('Message')(message);
  });
  return { types, schemas, events, received };
}
