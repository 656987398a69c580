/**
 * From a verified, JSON-decoded body to "which event is this": the envelope (id, type, timestamp,
 * data) per `contract.envelope`, and the event name per `contract.selector` and each event's `match`.
 * A type value that is no event's `match.body` but is an event's name selects that event (the
 * contract's key for it). A delivery no event matches is `event: undefined`, reported by
 * `reportUnknown` (never a silent 2xx).
 */
import type { Contract, EventMapBase, StandardSchemaV1 } from '../contract.js';
import { WebhookError } from '../errors.js';
import { getHeader } from '../headers.js';
import { unsignedIdHeader } from '../signing/hmac-scheme-core.js';
import type { HeadersInput, VerifiedDelivery } from '../signing/scheme.js';
import type { envelopeReader } from './envelope-reader.js';

export interface Extracted {
  /** Stable delivery/event id, when the transport or the envelope carries one. */
  readonly id: string | undefined;
  /** The selector's view of the type (for logs and unknown events). */
  readonly type: string;
  /** Contract event name, or undefined when no event matches. */
  readonly event: string | undefined;
  readonly timestamp: Date | undefined;
  readonly data: unknown;
  /** JSON pointer of `data` inside the body (prefix for validation issues). */
  readonly dataPointer: string;
}

export type Dispatcher = (body: unknown, headers: HeadersInput, verified: VerifiedDelivery) => Extracted;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function getPath(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split('.')) {
    if (!isRecord(current)) return undefined;
    current = current[part];
  }
  return current;
}

function toDate(value: unknown): Date | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

interface SchemaCandidate {
  readonly name: string;
  readonly schema: StandardSchemaV1;
  readonly fields: ReadonlySet<string>;
}

/**
 * `schema` selector: the one event whose schema accepts the payload; among several, the one that
 * declares the most of the body's fields (events in contract order).
 */
function bySchema(
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
  if (accepted.length > 1 && isRecord(data)) {
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

/** `readEnvelope`: the `envelope` part, required by an enveloped contract (`invalid_config` without). */
export function createDispatcher<M extends EventMapBase>(
  contract: Contract<M>,
  readEnvelope: typeof envelopeReader | undefined,
): Dispatcher {
  const { envelope, selector } = contract;
  if (envelope.kind === 'envelope' && readEnvelope === undefined) {
    throw new WebhookError(
      'invalid_config',
      `"${contract.name}" has an envelope: its parts need envelopeReader`,
    );
  }
  const reader = envelope.kind === 'envelope' ? readEnvelope?.(envelope) : undefined;
  const names = reader?.names;
  const dataPointer = names === undefined ? '' : `/${escapePointer(names.data)}`;
  const unsignedId = unsignedIdHeader(contract.signature);
  if (selector.kind === 'envelope-type' && names?.absent.has('type')) {
    throw new WebhookError(
      'invalid_config',
      'The envelope-type selector needs an envelope type field (it is listed as absent)',
    );
  }

  // Selector value → event name; for header selectors, header value → (body value → event name).
  // Several events may share a type value (Slack's `emoji_changed` with a `subtype`): their schemas decide.
  const byValue = new Map<string, SchemaCandidate[]>();
  const byHeader = new Map<string, { headerOnly?: string; byBody: Map<string, string> }>();
  const schemas: SchemaCandidate[] = [];
  for (const [name, definition] of Object.entries(contract.events)) {
    const match = definition.match;
    if (selector.kind === 'header') {
      const headerValue = match?.header;
      if (headerValue === undefined) {
        throw new WebhookError(
          'invalid_config',
          `Event "${name}" needs match.header for the header selector`,
        );
      }
      const slot = byHeader.get(headerValue) ?? { byBody: new Map<string, string>() };
      if (match?.body === undefined) slot.headerOnly = name;
      else slot.byBody.set(match.body, name);
      byHeader.set(headerValue, slot);
    } else {
      const candidate = { name, schema: definition.schema, fields: new Set(definition.fields ?? []) };
      schemas.push(candidate);
      if (selector.kind !== 'schema') {
        const value = match?.body ?? name;
        byValue.set(value, [...(byValue.get(value) ?? []), candidate]);
      }
    }
  }
  // The key fallback: only names no event claims as a match value.
  for (const candidate of schemas) if (!byValue.has(candidate.name)) byValue.set(candidate.name, [candidate]);

  return (body, headers, verified) => {
    let data: unknown = body;
    let envelopeId: string | undefined;
    let envelopeType: string | undefined;
    let timestamp: Date | undefined;
    if (reader !== undefined) {
      // parseEnvelope also accepts JSON text; a body that is a JSON string must not be parsed twice.
      if (!isRecord(body)) {
        throw new WebhookError('invalid_envelope', 'The body must be a JSON object (an event envelope)', {
          details: { pointer: '' },
        });
      }
      const parsed = reader.read(body);
      data = parsed.data;
      envelopeId = parsed.id;
      envelopeType = parsed.type;
      timestamp = toDate(parsed.timestamp);
    }
    if (timestamp === undefined && verified.timestamp !== undefined)
      timestamp = new Date(verified.timestamp * 1000);
    // The dedupe id comes from signed content only: `verified.id` is a signed transport id (e.g.
    // `webhook-id`, what senders keep stable across retries), else the envelope id in the signed body.
    // An id header the signature leaves out may only repeat the envelope id: a captured delivery must
    // not replay under fresh ids.
    if (unsignedId !== undefined && envelopeId !== undefined) {
      const claimed = getHeader(headers, unsignedId);
      if (claimed !== undefined && claimed !== envelopeId) {
        throw new WebhookError(
          'invalid_signature',
          `${unsignedId} is not signed and disagrees with the envelope id`,
          { details: { header: unsignedId.toLowerCase(), pointer: `/${escapePointer(names?.id ?? 'id')}` } },
        );
      }
    }
    const id = verified.id ?? envelopeId;

    let type: string;
    let event: string | undefined;
    if (selector.kind === 'header') {
      const headerValue = getHeader(headers, selector.header);
      if (headerValue === undefined) {
        throw new WebhookError('missing_header', `Missing ${selector.header} header (the event type)`, {
          details: { header: selector.header.toLowerCase() },
        });
      }
      const bodyValue = selector.bodyField === undefined ? undefined : getPath(data, selector.bodyField);
      const bodyText = typeof bodyValue === 'string' ? bodyValue : undefined;
      type = bodyText === undefined ? headerValue : `${headerValue}.${bodyText}`;
      const slot = byHeader.get(headerValue);
      event = (bodyText === undefined ? undefined : slot?.byBody.get(bodyText)) ?? slot?.headerOnly;
    } else if (selector.kind === 'schema') {
      ({ type, event } = bySchema(schemas, data));
    } else {
      const raw = selector.kind === 'body' ? getPath(body, selector.field) : envelopeType;
      if (raw === undefined && selector.kind === 'body' && selector.fallback === 'schema') {
        ({ type, event } = bySchema(schemas, data));
        return { id, type, event, timestamp, data, dataPointer };
      }
      if (typeof raw !== 'string' || raw === '') {
        const field = selector.kind === 'body' ? selector.field : (names?.type ?? 'type');
        throw new WebhookError(
          'invalid_envelope',
          `The body has no "${field}" string naming the event type`,
          {
            details: { pointer: `/${field.split('.').map(escapePointer).join('/')}` },
          },
        );
      }
      type = raw;
      const candidates = byValue.get(raw);
      event =
        candidates === undefined || candidates.length === 1
          ? candidates?.[0]?.name
          : bySchema(candidates, data).event;
    }
    return { id, type, event, timestamp, data, dataPointer };
  };
}

/**
 * Reports a verified delivery that matches no event of the contract: to `onError` (outcome
 * `ignored`, code `unknown_event`) when the receiver has one, else once per type to the console, so
 * an ignored delivery always leaves a trace.
 */
export function unknownReporter(
  contractName: string,
  report:
    | ((error: WebhookError, context: { outcome: 'ignored'; id?: string; type?: string }) => void)
    | undefined,
): (x: Extracted, context: { id?: string; type?: string }) => void {
  const logged = new Set<string>();
  return (x, context) => {
    const error = new WebhookError(
      'unknown_event',
      `"${contractName}" has no event for type "${x.type}"; the delivery was ignored`,
      { details: { type: x.type } },
    );
    if (report !== undefined) {
      report(error, { outcome: 'ignored', ...context });
      return;
    }
    if (logged.size >= 100 || logged.has(x.type)) return;
    logged.add(x.type);
    console.warn(`[gen-webhooks] ${error.message} (pass onError or unknownEvent to handle these)`, {
      type: x.type,
    });
  };
}
