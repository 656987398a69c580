/**
 * The delivery envelope: `{ id, type, timestamp (ISO 8601), data }` plus an optional API-version field,
 * under the field names the contract's `EnvelopeConfig` chooses (Petstore: `type` → `event`).
 * No `node:*` imports.
 *
 * Exports: `Envelope`, `envelopeFields(config)`, `buildEnvelope(config, input)` (the JSON body object),
 * `parseEnvelope(config, json)` (checks the shape; `invalid_envelope` with a JSON pointer).
 * The sender signs with `id = envelope.id`, so the `webhook-id` header equals the envelope id.
 */
import type { EnvelopeConfig } from './contract.js';
import { WebhookError } from './errors.js';
import { newMessageId } from './id.js';

export interface Envelope<T = unknown> {
  readonly id: string;
  readonly type: string;
  /** ISO 8601 / RFC 3339 date-time. */
  readonly timestamp: string;
  readonly data: T;
  readonly apiVersion?: string;
}

export interface EnvelopeFieldNames {
  readonly id: string;
  readonly type: string;
  readonly timestamp: string;
  readonly data: string;
  readonly apiVersion: string | undefined;
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

function fieldNames(config: Extract<EnvelopeConfig, { kind: 'envelope' }>): EnvelopeFieldNames {
  const f = config.fields ?? {};
  const names = {
    id: f.id ?? 'id',
    type: f.type ?? 'type',
    timestamp: f.timestamp ?? 'timestamp',
    data: f.data ?? 'data',
    apiVersion: f.apiVersion ?? (config.apiVersion === undefined ? undefined : 'apiVersion'),
  };
  const all = [names.id, names.type, names.timestamp, names.data, names.apiVersion].filter(
    (name): name is string => name !== undefined,
  );
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

function isoTimestamp(value: Date | string | number | undefined, now: () => number): string {
  if (value === undefined) return new Date(now()).toISOString();
  if (typeof value === 'string') {
    if (!RFC3339.test(value) || Number.isNaN(Date.parse(value))) {
      throw new WebhookError('invalid_argument', 'timestamp must be an ISO 8601 date-time');
    }
    return value;
  }
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new WebhookError('invalid_argument', 'timestamp is not a valid date');
  return date.toISOString();
}

/**
 * The body object to serialise. For `bare` contracts the payload itself is the body. Field order:
 * id, type, timestamp, apiVersion, data (stable, readable JSON).
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
  const body: Record<string, unknown> = {
    [names.id]: id,
    [names.type]: input.type,
    [names.timestamp]: isoTimestamp(input.timestamp, input.now ?? Date.now),
  };
  const apiVersion = input.apiVersion ?? config.apiVersion;
  if (names.apiVersion !== undefined && apiVersion !== undefined) body[names.apiVersion] = apiVersion;
  body[names.data] = input.data;
  return body;
}

function pointer(field: string): string {
  return `/${field.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

function shapeError(message: string, field?: string): WebhookError {
  return new WebhookError('invalid_envelope', message, {
    details: { pointer: field === undefined ? '' : pointer(field) },
  });
}

function requiredString(body: Record<string, unknown>, field: string, what: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') {
    throw shapeError(
      value === undefined
        ? `Envelope is missing "${field}" (${what})`
        : `Envelope "${field}" must be a string`,
      field,
    );
  }
  return value;
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
  const body = value as Record<string, unknown>;
  const id = requiredString(body, names.id, 'event id');
  const type = requiredString(body, names.type, 'event type');
  const timestamp = requiredString(body, names.timestamp, 'ISO 8601 timestamp');
  if (!RFC3339.test(timestamp) || Number.isNaN(Date.parse(timestamp))) {
    throw shapeError(`Envelope "${names.timestamp}" must be an ISO 8601 date-time`, names.timestamp);
  }
  if (!Object.hasOwn(body, names.data)) throw shapeError(`Envelope is missing "${names.data}"`, names.data);
  const envelope: { -readonly [K in keyof Envelope<T>]: Envelope<T>[K] } = {
    id,
    type,
    timestamp,
    data: body[names.data] as T,
  };
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
