/**
 * From a message/request body schema to the event payload: when the contract uses an envelope and
 * the body schema is an object with the envelope's data field, the payload is that field (and
 * examples are cut down to it); otherwise the payload is the whole body.
 */

import type { EnvelopeConfig } from '@gen-webhooks/runtime';
import { child, isRecord, type Loc } from '../load/document-store.js';
import type { SourcedSchema } from '../model.js';
import type { ParseContext } from './context.js';

export interface Payload {
  readonly payload: SourcedSchema;
  readonly examples: readonly unknown[];
}

export function payloadOf(
  ctx: ParseContext,
  envelope: EnvelopeConfig,
  body: Loc,
  bodyExamples: readonly unknown[],
): Payload {
  if (envelope.kind === 'envelope') {
    const field = envelope.fields?.data ?? 'data';
    const data = findProperty(ctx, body, field, new Set());
    if (data) {
      return {
        payload: ctx.schemas.normalize(data),
        examples: bodyExamples.flatMap((example) =>
          isRecord(example) && field in example ? [example[field]] : [],
        ),
      };
    }
  }
  return { payload: ctx.schemas.normalize(body), examples: bodyExamples };
}

/** The location of `properties[field]` in an object schema, looking through `$ref` and `allOf`. */
export function findProperty(
  ctx: ParseContext,
  schema: Loc,
  field: string,
  seen: Set<string>,
): Loc | undefined {
  if (!isRecord(schema.value)) return undefined;
  const { loc } = ctx.store.deref(schema);
  const key = `${loc.doc.id}#${loc.pointer}`;
  // `seen` also bounds the walk: a YAML alias cycle through allOf would make pointers grow forever.
  if (seen.has(key) || seen.size > 64 || !isRecord(loc.value)) return undefined;
  seen.add(key);
  const properties = loc.value.properties;
  if (isRecord(properties) && field in properties) return child(child(loc, 'properties'), field);
  const allOf = loc.value.allOf;
  if (Array.isArray(allOf)) {
    const at = child(loc, 'allOf');
    for (let i = 0; i < allOf.length; i++) {
      const found = findProperty(ctx, child(at, i), field, seen);
      if (found) return found;
    }
  }
  return undefined;
}

/** `examples`/`example` written on the schema itself (after following `$ref`s). */
export function schemaExamples(ctx: ParseContext, schema: Loc): unknown[] {
  if (!isRecord(schema.value)) return [];
  const { loc } = ctx.store.deref(schema);
  if (!isRecord(loc.value)) return [];
  if (Array.isArray(loc.value.examples)) return [...loc.value.examples];
  if ('example' in loc.value) return [loc.value.example];
  return [];
}
