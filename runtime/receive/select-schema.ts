/**
 * `schemaSelector`: the event whose payload schema accepts a delivery — the `schema` selector, a body
 * selector's `fallback: 'schema'`, and the tie-break of events that share a type value (Slack's
 * `emoji_changed` with a `subtype`). A receiver part (`schemaSelector`), so a contract that never
 * chooses by schema carries none of it.
 */
import type { StandardSchemaV1 } from '../contract.js';
import { WebhookError } from '../errors.js';

export interface SchemaCandidate {
  readonly name: string;
  readonly schema: StandardSchemaV1;
  readonly fields: ReadonlySet<string>;
}

/**
 * The one event whose schema accepts the payload; among several, the one that declares the most of
 * the body's fields (events in contract order). `event: undefined` when none or several remain.
 */
export function schemaSelector(
  events: readonly SchemaCandidate[],
  data: unknown,
): { type: string; event: string | undefined } {
  if (events.length === 1) {
    const only = (events[0] as SchemaCandidate).name;
    return { type: only, event: only };
  }
  let accepted: SchemaCandidate[] = [];
  for (const candidate of events) {
    const result = candidate.schema['~standard'].validate(data);
    if (result instanceof Promise) {
      throw new WebhookError('invalid_config', 'The "schema" selector needs synchronous schemas');
    }
    if (result.issues === undefined) accepted.push(candidate);
  }
  if (accepted.length > 1 && typeof data === 'object' && data !== null && !Array.isArray(data)) {
    const keys = Object.keys(data);
    const score = (c: SchemaCandidate) => keys.filter((k) => c.fields.has(k)).length;
    const best = Math.max(...accepted.map(score));
    accepted = accepted.filter((c) => score(c) === best);
  }
  if (accepted.length === 1) {
    const name = (accepted[0] as SchemaCandidate).name;
    return { type: name, event: name };
  }
  return {
    type:
      accepted.length === 0
        ? '(no event schema accepts the payload)'
        : `(ambiguous: ${accepted.map((c) => c.name).join(', ')})`,
    event: undefined,
  };
}
