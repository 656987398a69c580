/**
 * How an envelope's timestamp field is written, from its schema in every body: a `date-time` string
 * (or a string every example writes as RFC 3339) is ISO; an integer/number is Unix milliseconds when
 * its description says so or the examples are too large for seconds, else Unix seconds.
 */
import type { BodyField } from './body-fields.js';
import { typesOf } from './body-fields.js';

export type TimestampKind = 'iso' | 'unix' | 'unix-ms';

export interface TimestampCandidate {
  readonly name: string;
  /** The field's schema in every body. */
  readonly fields: readonly BodyField[];
  /** Body examples (the field is read from those that have it). */
  readonly examples: readonly unknown[];
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
/** 10^11 ms is 1973; 10^11 s is year 5138: a value above it is milliseconds. */
const MS_THRESHOLD = 1e11;

function exampleValues(candidate: TimestampCandidate): unknown[] {
  return candidate.examples.flatMap((example) =>
    typeof example === 'object' && example !== null && candidate.name in example
      ? [(example as Record<string, unknown>)[candidate.name]]
      : [],
  );
}

function kindOf(candidate: TimestampCandidate): TimestampKind | undefined {
  const kinds = candidate.fields.map((f) => {
    const types = typesOf(f.schema).filter((t) => t !== 'null');
    if (types.length === 1 && types[0] === 'string')
      return f.schema.format === 'date-time' ? 'iso' : 'string';
    if (types.length === 1 && (types[0] === 'integer' || types[0] === 'number')) return 'number';
    return 'other';
  });
  const values = exampleValues(candidate);
  if (kinds.every((k) => k === 'iso')) return 'iso';
  if (kinds.every((k) => k === 'iso' || k === 'string')) {
    const texts = values.filter((v): v is string => typeof v === 'string');
    return texts.length > 0 && texts.length === values.length && texts.every((t) => RFC3339.test(t))
      ? 'iso'
      : undefined;
  }
  if (!kinds.every((k) => k === 'number')) return undefined;
  const said = candidate.fields.some((f) =>
    /milli|\bms\b/i.test(`${String(f.schema.description ?? '')} ${String(f.schema.title ?? '')}`),
  );
  const large = values.some((v) => typeof v === 'number' && v >= MS_THRESHOLD);
  return said || large ? 'unix-ms' : 'unix';
}

/** The first candidate (in the caller's order) whose format can be told; undefined when none. */
export function timestampOf(
  candidates: readonly TimestampCandidate[],
): { name: string; kind: TimestampKind } | undefined {
  for (const candidate of candidates) {
    const kind = kindOf(candidate);
    if (kind !== undefined) return { name: candidate.name, kind };
  }
  return undefined;
}
