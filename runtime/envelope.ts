/**
 * The delivery envelope: `{ id, type, timestamp (ISO 8601), data }` plus an optional API-version field,
 * under the field names the contract's `EnvelopeConfig` chooses (Petstore: `type` → `event`). Vendor
 * envelopes carry fewer fields (`absent`: the id in a signed header) or may leave some out
 * (`optional`), and may write the timestamp as Unix seconds or milliseconds (`timestampFormat`).
 * No `node:*` imports.
 *
 * Exports: `Envelope`, `envelopeFields(config)` (checked; `checkedEnvelopeFields` for a config already
 * checked), `buildEnvelope(config, input)` (the JSON body object),
 * `parseEnvelope(config, json)` (checks the shape; `invalid_envelope` with a JSON pointer),
 * `readEnvelope(names, object)` (the same for a parsed object, names computed once: receivers).
 * The sender signs with `id = envelope.id`, so the `webhook-id` header equals the envelope id.
 */
import type { EnvelopeConfig, EnvelopeMetaField, EnvelopeTimestampFormat } from './contract.js';
import { WebhookError } from './errors.js';
import { newMessageId } from './id.js';
import { escapePointer } from './json-pointer.js';

export interface Envelope<T = unknown> {
  /** Absent when the contract's body carries no id (it comes from a header then) or left it out. */
  readonly id?: string;
  readonly type?: string;
  /** ISO 8601 / RFC 3339 date-time (Unix times are converted). */
  readonly timestamp?: string;
  readonly data: T;
  readonly apiVersion?: string;
}

export interface EnvelopeFieldNames {
  readonly id: string;
  readonly type: string;
  readonly timestamp: string;
  readonly data: string;
  readonly apiVersion: string | undefined;
  readonly timestampFormat: EnvelopeTimestampFormat;
  /** Fields the body does not have (never read, never written). */
  readonly absent: ReadonlySet<EnvelopeMetaField>;
  /** Fields read when present and not demanded. */
  readonly optional: ReadonlySet<EnvelopeMetaField>;
}

export interface BuildEnvelopeInput<T = unknown> {
  readonly type: string;
  readonly data: T;
  /** Default: a new `msg_…` id (see id.ts). */
  readonly id?: string;
  /** Date, ISO string or epoch milliseconds. Default: `now()`. */
  readonly timestamp?: Date | string | number;
  /** Default `Date.now`. */
  readonly now?: () => number;
  /** Default `newMessageId`. */
  readonly generateId?: () => string;
  /** Overrides `config.apiVersion`. */
  readonly apiVersion?: string;
}

const RFC3339 =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const META: readonly EnvelopeMetaField[] = ['id', 'type', 'timestamp'];
const FORMATS: readonly EnvelopeTimestampFormat[] = ['iso', 'unix', 'unix-ms'];

function metaSet(list: unknown, what: string): void {
  if (list !== undefined && (!Array.isArray(list) || list.some((f) => !META.includes(f)))) {
    throw new WebhookError('invalid_config', `Envelope ${what} must list some of id, type, timestamp`);
  }
}

/**
 * The field names in use (the defaults filled in) of an envelope config that was checked: by
 * `envelopeFields`, or by the generator for a generated contract (its Web receiver carries no checks).
 */
export function checkedEnvelopeFields(
  config: Extract<EnvelopeConfig, { kind: 'envelope' }>,
): EnvelopeFieldNames {
  const f = config.fields ?? {};
  return {
    id: f.id ?? 'id',
    type: f.type ?? 'type',
    timestamp: f.timestamp ?? 'timestamp',
    data: f.data ?? 'data',
    apiVersion: f.apiVersion ?? (config.apiVersion === undefined ? undefined : 'apiVersion'),
    timestampFormat: config.timestampFormat ?? 'iso',
    absent: new Set(config.absent),
    optional: new Set(config.optional),
  };
}

function fieldNames(config: Extract<EnvelopeConfig, { kind: 'envelope' }>): EnvelopeFieldNames {
  metaSet(config.absent, 'absent');
  metaSet(config.optional, 'optional');
  if (!FORMATS.includes(config.timestampFormat ?? 'iso')) {
    throw new WebhookError('invalid_config', 'Envelope timestampFormat must be iso, unix or unix-ms');
  }
  const names = checkedEnvelopeFields(config);
  const { absent } = names;
  const all = [
    absent.has('id') ? undefined : names.id,
    absent.has('type') ? undefined : names.type,
    absent.has('timestamp') ? undefined : names.timestamp,
    names.data,
    names.apiVersion,
  ].filter((name): name is string => name !== undefined);
  if (all.some((name) => typeof name !== 'string' || name === '') || new Set(all).size !== all.length) {
    throw new WebhookError('invalid_config', 'Envelope field names must be distinct, non-empty strings');
  }
  return names;
}

/** Field names in use; `invalid_config` for a `bare` contract (its body is the payload). */
export function envelopeFields(config: EnvelopeConfig): EnvelopeFieldNames {
  if (config.kind !== 'envelope') {
    throw new WebhookError('invalid_config', 'A bare contract has no envelope: the body is the payload');
  }
  return fieldNames(config);
}

function toDate(value: Date | string | number | undefined, now: () => number): Date | string {
  if (value === undefined) return new Date(now());
  if (typeof value === 'string') {
    if (!RFC3339.test(value) || Number.isNaN(Date.parse(value))) {
      throw new WebhookError('invalid_argument', 'timestamp must be an ISO 8601 date-time');
    }
    return value;
  }
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new WebhookError('invalid_argument', 'timestamp is not a valid date');
  return date;
}

/** The timestamp as the contract writes it (an ISO string given as such is kept verbatim). */
function writeTimestamp(value: Date | string, format: EnvelopeTimestampFormat): string | number {
  if (format === 'iso') return typeof value === 'string' ? value : value.toISOString();
  const ms = typeof value === 'string' ? Date.parse(value) : value.getTime();
  return format === 'unix' ? Math.floor(ms / 1000) : ms;
}

/**
 * The body object to serialise. For `bare` contracts the payload itself is the body. Field order:
 * id, type, timestamp, apiVersion, data (stable, readable JSON); `absent` fields are not written.
 */
export function buildEnvelope<T>(
  config: EnvelopeConfig,
  input: BuildEnvelopeInput<T>,
): Record<string, unknown> | T {
  if (config.kind === 'bare') return input.data;
  const names = fieldNames(config);
  if (typeof input.type !== 'string' || input.type === '') {
    throw new WebhookError('invalid_argument', 'Envelope type must be a non-empty string');
  }
  const id = input.id ?? (input.generateId ?? newMessageId)();
  if (typeof id !== 'string' || id === '')
    throw new WebhookError('invalid_argument', 'Envelope id must be non-empty');
  const timestamp = toDate(input.timestamp, input.now ?? Date.now);
  const body: Record<string, unknown> = {};
  if (!names.absent.has('id')) body[names.id] = id;
  if (!names.absent.has('type')) body[names.type] = input.type;
  if (!names.absent.has('timestamp'))
    body[names.timestamp] = writeTimestamp(timestamp, names.timestampFormat);
  const apiVersion = input.apiVersion ?? config.apiVersion;
  if (names.apiVersion !== undefined && apiVersion !== undefined) body[names.apiVersion] = apiVersion;
  body[names.data] = input.data;
  return body;
}

function shapeError(message: string, field?: string): WebhookError {
  return new WebhookError('invalid_envelope', message, {
    details: { pointer: field === undefined ? '' : `/${escapePointer(field)}` },
  });
}

/** A string field: undefined when absent from the contract, or missing and allowed to be. */
function readString(
  body: Record<string, unknown>,
  names: EnvelopeFieldNames,
  which: 'id' | 'type',
  what: string,
): string | undefined {
  if (names.absent.has(which)) return undefined;
  const field = names[which];
  const value = body[field];
  if (value === undefined && names.optional.has(which)) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw shapeError(
      value === undefined
        ? `Envelope is missing "${field}" (${what})`
        : `Envelope "${field}" must be a non-empty string`,
      field,
    );
  }
  return value;
}

/** The timestamp as ISO text, whichever way the contract writes it. */
function readTimestamp(body: Record<string, unknown>, names: EnvelopeFieldNames): string | undefined {
  if (names.absent.has('timestamp')) return undefined;
  const field = names.timestamp;
  const value = body[field];
  if (value === undefined && names.optional.has('timestamp')) return undefined;
  if (names.timestampFormat === 'iso') {
    if (typeof value !== 'string' || !RFC3339.test(value) || Number.isNaN(Date.parse(value))) {
      throw shapeError(
        value === undefined
          ? `Envelope is missing "${field}" (ISO 8601 timestamp)`
          : `Envelope "${field}" must be an ISO 8601 date-time`,
        field,
      );
    }
    return value;
  }
  const unit = names.timestampFormat === 'unix' ? 'seconds' : 'milliseconds';
  const ms = typeof value === 'number' ? (names.timestampFormat === 'unix' ? value * 1000 : value) : NaN;
  const date = new Date(ms);
  if (!Number.isFinite(ms) || Number.isNaN(date.getTime())) {
    throw shapeError(
      value === undefined
        ? `Envelope is missing "${field}" (Unix ${unit})`
        : `Envelope "${field}" must be a number of Unix ${unit}`,
      field,
    );
  }
  return date.toISOString();
}

/**
 * Checks the envelope shape of a parsed body (or JSON text) and returns it under the canonical field
 * names. Invalid JSON text is `invalid_body`; a wrong shape is `invalid_envelope` with `details.pointer`.
 */
export function parseEnvelope<T = unknown>(config: EnvelopeConfig, json: unknown): Envelope<T> {
  const names = envelopeFields(config);
  let value = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch (cause) {
      throw new WebhookError('invalid_body', 'Body is not valid JSON', { cause });
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw shapeError('Envelope must be a JSON object');
  }
  return readEnvelope(names, value as Record<string, unknown>);
}

/**
 * `parseEnvelope` for a body already known to be a JSON object, with the field names computed once
 * (`envelopeFields`): what a receiver runs per delivery.
 */
export function readEnvelope<T = unknown>(
  names: EnvelopeFieldNames,
  body: Record<string, unknown>,
): Envelope<T> {
  const id = readString(body, names, 'id', 'event id');
  const type = readString(body, names, 'type', 'event type');
  const timestamp = readTimestamp(body, names);
  if (!Object.hasOwn(body, names.data)) throw shapeError(`Envelope is missing "${names.data}"`, names.data);
  const envelope: { -readonly [K in keyof Envelope<T>]: Envelope<T>[K] } = { data: body[names.data] as T };
  if (id !== undefined) envelope.id = id;
  if (type !== undefined) envelope.type = type;
  if (timestamp !== undefined) envelope.timestamp = timestamp;
  if (names.apiVersion !== undefined && body[names.apiVersion] !== undefined) {
    const apiVersion = body[names.apiVersion];
    if (typeof apiVersion !== 'string') {
      throw shapeError(`Envelope "${names.apiVersion}" must be a string`, names.apiVersion);
    }
    envelope.apiVersion = apiVersion;
  }
  return envelope;
}

export { createIdGenerator, type IdGeneratorOptions, idTime, newMessageId } from './id.js';
