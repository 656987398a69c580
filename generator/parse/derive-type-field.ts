/**
 * The type field of a contract's bodies: a property every body has whose value each schema fixes
 * (`const`, a one-value `enum`, or an `enum` holding the event's key) with not all values equal;
 * else a required string property named like a type, matched by the keys; else a type-named field
 * that most bodies carry with their own fixed values (the others told apart by schema).
 */
import type { Loc } from '../load/document-store.js';
import { type BodyField, type BodyFields, enumStrings, fixedString } from './body-fields.js';

export interface DeriveEvent {
  readonly name: string;
  readonly body: Loc;
  readonly bodyExamples: readonly unknown[];
}

export const TYPE_NAMES = [
  'type',
  'event',
  'eventType',
  'event_type',
  'action',
  'kind',
  'topic',
  'eventName',
  'event_name',
];

/** A path-like webhook key (`/ACCOUNT_CLOSED`) names the event without its slash. */
export function keyValue(name: string): string {
  return name.length > 1 && name.startsWith('/') ? name.slice(1) : name;
}

export interface TypeField {
  readonly field: string;
  /** Type value per event (fixed by the schema, or the key). */
  readonly values: ReadonlyMap<string, string>;
  readonly fromKeys: boolean;
  /** Some bodies have no such field (bare bodies only: those are told apart by schema). */
  readonly partial?: boolean;
}

export function common(all: readonly BodyFields[], names?: readonly string[]): string[] {
  const first = all[0];
  if (first === undefined) return [];
  const candidates = names ?? [...first.keys()];
  return candidates.filter((name) => all.every((fields) => fields.has(name)));
}

export const stringy = (f: BodyField) => {
  const t = f.schema.type;
  return t === undefined || t === 'string' || (Array.isArray(t) && t.includes('string'));
};

export function rank(name: string): number {
  const i = TYPE_NAMES.indexOf(name);
  return i < 0 ? TYPE_NAMES.length : i;
}

/** The type field of the bodies (see the header), or undefined. */
export function typeField(
  events: readonly DeriveEvent[],
  fields: readonly BodyFields[],
): TypeField | undefined {
  const strong: TypeField[] = [];
  const weak: TypeField[] = [];
  for (const field of common(fields)) {
    const per = fields.map((f) => f.get(field) as BodyField);
    if (!per.every(stringy)) continue;
    const values = new Map<string, string>();
    let fixed = 0;
    per.forEach((f, i) => {
      const name = (events[i] as DeriveEvent).name;
      const value =
        fixedString(f.schema) ??
        (enumStrings(f.schema)?.includes(keyValue(name)) ? keyValue(name) : undefined);
      if (value !== undefined) fixed++;
      values.set(name, value ?? keyValue(name));
    });
    const distinct = new Set(values.values()).size;
    const required = per.every((f) => f.required);
    if (
      fixed === per.length &&
      (per.length === 1 ? required && rank(field) < TYPE_NAMES.length : distinct > 1)
    ) {
      strong.push({ field, values, fromKeys: false });
    } else if (per.length > 1 && required && rank(field) < TYPE_NAMES.length && distinct > 1) {
      weak.push({ field, values, fromKeys: fixed < per.length });
    }
  }
  const order = (a: TypeField, b: TypeField) => rank(a.field) - rank(b.field) || (a.field < b.field ? -1 : 1);
  return strong.sort(order)[0] ?? weak.sort(order)[0] ?? partialTypeField(events, fields);
}

/**
 * A type-named field that most bodies have, each with its own fixed value (Adyen's management
 * webhooks: all but one event carry `type`); the others are told apart by their schemas.
 */
function partialTypeField(
  events: readonly DeriveEvent[],
  fields: readonly BodyFields[],
): TypeField | undefined {
  if (events.length < 3) return undefined;
  for (const field of TYPE_NAMES) {
    const values = new Map<string, string>();
    let ok = true;
    fields.forEach((f, i) => {
      const at = f.get(field);
      if (at === undefined) return;
      const value = stringy(at) && at.required ? fixedString(at.schema) : undefined;
      if (value === undefined) ok = false;
      else values.set((events[i] as DeriveEvent).name, value);
    });
    if (ok && values.size * 2 > events.length && new Set(values.values()).size === values.size) {
      return { field, values, fromKeys: false, partial: true };
    }
  }
  return undefined;
}
