/**
 * The envelope and selector of a contract that declares none, read off its event body schemas:
 * - the type field: a property every body has whose value each schema fixes (`const`, a one-value
 *   `enum`, or an `enum` holding the event's key) with not all values equal; else a required string
 *   property named like a type (`type`, `event`, `eventType`, …), matched by the keys;
 * - the data field: a `data`/`payload` property every body requires, beside envelope fields;
 *   without one the body is bare (the payload itself);
 * - the id and the timestamp (ISO `date-time`, Unix seconds or milliseconds) where every body has
 *   them; demanded only where every schema requires them and the signature does not sign a header
 *   carrying them (see signed-meta.ts).
 * Each event's `match.body` is its fixed type value, else its key (a path-like key `/X` matches `X`).
 * When no field names the type, events are told apart by their schemas (`schema` selector) and a
 * warning names the declaration that fixes it.
 */
import type {
  EnvelopeConfig,
  EnvelopeMetaField,
  SelectorConfig,
  SignatureConfig,
} from '@gen-webhooks/runtime';
import { type BodyField, type BodyFields, bodyFields, fixedString } from './body-fields.js';
import type { ParseContext } from './context.js';
import {
  common,
  type DeriveEvent,
  stringy,
  TYPE_NAMES,
  type TypeField,
  typeField,
} from './derive-type-field.js';
import { signedMeta } from './signed-meta.js';
import { type TimestampKind, timestampOf } from './timestamp-field.js';

export type { DeriveEvent } from './derive-type-field.js';

export interface DeriveOptions {
  /** For messages: the contract file as users see it. */
  readonly file: string;
  readonly signature: SignatureConfig;
  /** Declared by the document (`x-gen-webhooks`); derived only when absent. */
  readonly envelope?: EnvelopeConfig;
  readonly selector?: SelectorConfig;
}

export interface Derived {
  readonly envelope: EnvelopeConfig;
  readonly selector: SelectorConfig;
  /** `match.body` per event name, where it differs from the name. */
  readonly matches: ReadonlyMap<string, string>;
}

const DATA_NAMES = ['data', 'payload'];
const ID_NAMES = [
  'id',
  'eventId',
  'event_id',
  'webhookId',
  'webhook_id',
  'messageId',
  'message_id',
  'notificationId',
];
const TIMESTAMP_NAMES = [
  'timestamp',
  'created_at',
  'createdAt',
  'created',
  'time',
  'occurred_at',
  'occurredAt',
  'event_time',
  'eventTime',
  'sent_at',
  'sentAt',
];
const ENVELOPE_EXTRAS = ['object', 'apiVersion', 'api_version', 'version', 'environment', 'livemode'];

function presence(
  found: boolean,
  fields: readonly BodyFields[],
  field: string | undefined,
  signed: boolean,
): 'required' | 'optional' | 'absent' {
  if (!found || field === undefined) return 'absent';
  return !signed && fields.every((f) => f.get(field)?.required === true) ? 'required' : 'optional';
}

export function deriveDelivery(
  ctx: ParseContext,
  events: readonly DeriveEvent[],
  options: DeriveOptions,
): Derived {
  const fields = events.map((e) => bodyFields(ctx, e.body) ?? new Map<string, BodyField>());
  const declared = options.envelope;
  const declaredField =
    options.selector?.kind === 'body'
      ? options.selector.field
      : declared?.kind === 'envelope'
        ? (declared.fields?.type ?? 'type')
        : undefined;
  const type =
    declaredField === undefined ? typeField(events, fields) : valuesOf(events, fields, declaredField);
  const matches = new Map<string, string>();
  for (const [name, value] of type?.values ?? []) if (value !== name) matches.set(name, value);
  if (declared !== undefined && options.selector !== undefined) {
    return { envelope: declared, selector: options.selector, matches };
  }
  const envelope =
    declared ?? deriveEnvelope(ctx, events, fields, type?.partial ? undefined : type?.field, options);
  if (events.length > 1 && type === undefined && options.selector === undefined) {
    const wrap =
      envelope.kind === 'bare'
        ? '; to wrap the payloads in the Standard Webhooks envelope { id, type, timestamp, data } instead, declare `x-gen-webhooks: { envelope: { kind: envelope } }`'
        : '';
    ctx.diagnostics.push({
      level: 'warning',
      code: 'no_type_field',
      message: `${options.file}: no field names the event type in every body (a \`type\`-like property with a const or one-value enum per event), so receivers tell the ${events.length} events apart by their payload schemas; if the bodies carry one, declare it with \`x-gen-webhooks: { selector: { kind: body, field: <name> } }\` at the document root (and \`x-gen-webhooks: { match: { body: <value> } }\` on events whose value is not their key)${wrap}`,
      file: options.file,
      pointer: '',
    });
  } else if (type?.fromKeys === true && declaredField === undefined) {
    ctx.diagnostics.push({
      level: 'info',
      code: 'type_values_from_keys',
      message: `${options.file}: the bodies' \`${type.field}\` names the event, but the schemas do not fix its values; each event matches its key (declare \`x-gen-webhooks: { match: { body: <value> } }\` on events whose value differs)`,
      file: options.file,
      pointer: '',
    });
  }
  const selector: SelectorConfig =
    options.selector ??
    (type === undefined || (type.partial && envelope.kind === 'envelope')
      ? { kind: 'schema' }
      : type.partial
        ? { kind: 'body', field: type.field, fallback: 'schema' }
        : envelope.kind === 'envelope'
          ? { kind: 'envelope-type' }
          : { kind: 'body', field: type.field });
  return { envelope, selector, matches };
}

/** Match values for a type field the document declared (its fixed values, else the keys). */
function valuesOf(events: readonly DeriveEvent[], fields: readonly BodyFields[], field: string): TypeField {
  const values = new Map<string, string>();
  events.forEach((event, i) => {
    const schema = fields[i]?.get(field.split('.')[0] as string)?.schema;
    const fixed = field.includes('.') || schema === undefined ? undefined : fixedString(schema);
    values.set(event.name, fixed ?? event.name);
  });
  return { field, values, fromKeys: false };
}

function deriveEnvelope(
  ctx: ParseContext,
  events: readonly DeriveEvent[],
  fields: readonly BodyFields[],
  typeName: string | undefined,
  options: DeriveOptions,
): EnvelopeConfig {
  const dataName = common(fields, DATA_NAMES).find((name) =>
    fields.every((f) => f.get(name)?.required === true),
  );
  const others = new Set(fields.flatMap((f) => [...f.keys()]));
  const meta = new Set([
    ...ID_NAMES,
    ...TIMESTAMP_NAMES,
    ...TYPE_NAMES,
    ...ENVELOPE_EXTRAS,
    ...(dataName ? [dataName] : []),
  ]);
  const enveloped =
    dataName !== undefined &&
    events.length > 0 &&
    (typeName !== undefined || [...others].every((n) => meta.has(n)));
  if (!enveloped) return { kind: 'bare' };
  const signed = signedMeta(options.signature);
  const idName = common(fields, ID_NAMES).find((name) =>
    fields.every((f) => stringy(f.get(name) as BodyField)),
  );
  const stamp = timestampOf(
    common(fields, TIMESTAMP_NAMES).map((name) => ({
      name,
      fields: fields.map((f) => f.get(name) as BodyField),
      examples: events.flatMap((e) => e.bodyExamples),
    })),
  );
  const id = presence(idName !== undefined, fields, idName, signed.id !== undefined);
  const timestamp = presence(stamp !== undefined, fields, stamp?.name, signed.timestamp !== undefined);
  const absent: EnvelopeMetaField[] = [];
  const optional: EnvelopeMetaField[] = [];
  for (const [which, state] of [
    ['id', id],
    ['timestamp', timestamp],
  ] as const) {
    if (state === 'absent') absent.push(which);
    if (state === 'optional') optional.push(which);
  }
  if (typeName === undefined) absent.push('type');
  const renamed: Record<string, string> = {};
  if (idName !== undefined && idName !== 'id') renamed.id = idName;
  if (typeName !== undefined && typeName !== 'type') renamed.type = typeName;
  if (stamp !== undefined && stamp.name !== 'timestamp') renamed.timestamp = stamp.name;
  if (dataName !== 'data') renamed.data = dataName;
  const envelope: EnvelopeConfig = {
    kind: 'envelope',
    ...(Object.keys(renamed).length > 0 ? { fields: renamed } : {}),
    ...(stamp !== undefined && stamp.kind !== 'iso' ? { timestampFormat: stamp.kind as TimestampKind } : {}),
    ...(absent.length > 0 ? { absent: absent.sort() } : {}),
    ...(optional.length > 0 ? { optional } : {}),
  };
  ctx.diagnostics.push({
    level: 'info',
    code: 'envelope_derived',
    message: `${options.file}: envelope read from the event schemas: ${describe(envelope, typeName, dataName, signed, stamp?.kind)}`,
    file: options.file,
    pointer: '',
  });
  return envelope;
}

function describe(
  envelope: Extract<EnvelopeConfig, { kind: 'envelope' }>,
  typeName: string | undefined,
  dataName: string,
  signed: { id?: string; timestamp?: string },
  stampKind: string | undefined,
): string {
  const f = envelope.fields ?? {};
  const part = (which: 'id' | 'timestamp', name: string, header: string | undefined) =>
    envelope.absent?.includes(which)
      ? header !== undefined
        ? `${which} from the signed ${header} header`
        : `no ${which}`
      : `${which} in \`${name}\`${envelope.optional?.includes(which) ? ' (optional)' : ''}`;
  return [
    `data in \`${dataName}\``,
    typeName === undefined ? 'no type field' : `type in \`${typeName}\``,
    part('id', f.id ?? 'id', signed.id),
    `${part('timestamp', f.timestamp ?? 'timestamp', signed.timestamp)}${stampKind !== undefined && stampKind !== 'iso' ? ` as ${stampKind === 'unix' ? 'Unix seconds' : 'Unix milliseconds'}` : ''}`,
  ].join(', ');
}
