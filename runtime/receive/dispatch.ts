/**
 * From a verified, JSON-decoded body to "which event is this": the envelope (id, type, timestamp,
 * data) per `contract.envelope`, and the event name per `contract.selector` and each event's `match`.
 * A type value that is no event's `match.body` but is an event's name selects that event (the
 * contract's key for it). A delivery no event matches is `event: undefined`, reported by
 * `reportUnknown` (never a silent 2xx). The `header` selector and the choice by schema are parts
 * (`select-header.ts`, `select-schema.ts`): a contract that uses neither carries neither.
 */
import type { Contract, EventMapBase } from '../contract.js';
import { WebhookError } from '../errors.js';
import { escapePointer } from '../json-pointer.js';
import type { HeadersInput, VerifiedDelivery } from '../signing/scheme.js';
import { getPath } from './body-path.js';
import type { envelopeReader } from './envelope-reader.js';
import type { HeaderSelect, headerSelector } from './select-header.js';
import type { SchemaCandidate, schemaSelector } from './select-schema.js';
import type { unsignedIdCheck } from './unsigned-id.js';

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

function toDate(value: unknown): Date | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The parts a dispatcher takes: the envelope reader and the selectors beyond a type value. */
export interface DispatchParts {
  readonly envelope?: typeof envelopeReader;
  readonly headerSelector?: typeof headerSelector;
  readonly schemaSelector?: typeof schemaSelector;
  readonly unsignedId?: typeof unsignedIdCheck;
}

/**
 * `parts.envelope` is required by an enveloped contract, `parts.headerSelector` by a `header`
 * selector, `parts.schemaSelector` by a contract that chooses by schema, `parts.unsignedId` by an
 * `hmac` contract with an id header outside its signed content. Not checked: the runtime's
 * `createReceiver` passes every part, and a generated receiver the ones its contract needs (the
 * generator's `receiverParts`, tested against the rules here).
 */
export function createDispatcher<M extends EventMapBase>(
  contract: Contract<M>,
  parts: DispatchParts,
): Dispatcher {
  const { envelope, selector } = contract;
  const reader = envelope.kind === 'envelope' ? parts.envelope!(envelope) : undefined;
  const names = reader?.names;
  const dataPointer = names === undefined ? '' : `/${escapePointer(names.data)}`;
  const checkId = parts.unsignedId?.(contract, names?.id);
  const byHeader: HeaderSelect | undefined =
    selector.kind === 'header' ? parts.headerSelector!(contract) : undefined;

  // Selector value → event names. Several events may share a type value (Slack's `emoji_changed`
  // with a `subtype`): their schemas decide.
  const byValue = new Map<string, SchemaCandidate[]>();
  const schemas: SchemaCandidate[] = [];
  if (byHeader === undefined) {
    for (const [name, definition] of Object.entries(contract.events)) {
      const candidate = { name, schema: definition.schema, fields: new Set(definition.fields ?? []) };
      schemas.push(candidate);
      if (selector.kind !== 'schema') {
        const value = definition.match?.body ?? name;
        byValue.set(value, [...(byValue.get(value) ?? []), candidate]);
      }
    }
  }
  // The key fallback: only names no event claims as a match value.
  for (const candidate of schemas) if (!byValue.has(candidate.name)) byValue.set(candidate.name, [candidate]);
  // Called only for a contract that chooses by schema.
  const choose = parts.schemaSelector!;

  return (body, headers, verified) => {
    let data: unknown = body;
    let envelopeId: string | undefined;
    let envelopeType: string | undefined;
    let timestamp: Date | undefined;
    if (reader !== undefined) {
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
    if (checkId !== undefined && envelopeId !== undefined) checkId(headers, envelopeId);
    const id = verified.id ?? envelopeId;

    let type: string;
    let event: string | undefined;
    if (byHeader !== undefined) {
      ({ type, event } = byHeader(headers, data));
    } else if (selector.kind === 'schema') {
      ({ type, event } = choose(schemas, data));
    } else {
      const raw = selector.kind === 'body' ? getPath(body, selector.field) : envelopeType;
      if (raw === undefined && selector.kind === 'body' && selector.fallback === 'schema') {
        ({ type, event } = choose(schemas, data));
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
          : choose(candidates, data).event;
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
