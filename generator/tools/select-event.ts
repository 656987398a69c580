/**
 * Which event of a contract a request is, by the contract's selector (see `SelectorConfig`): the
 * envelope's type field, a body field, or a header plus an optional body field (GitHub's
 * `X-GitHub-Event` + `action`), or no field at all (the one event whose payload schema accepts the
 * body). A type value that is no event's match but an event's name selects it, as in receivers.
 * Used by listen to name what it received and by send to check that
 * what it built selects the intended event.
 */
import type { HeadersInput, SelectorConfig } from '@gen-webhooks/runtime';
import { envelopeFields, getHeader } from '@gen-webhooks/runtime';
import type { ContractModel, EventModel } from '../model.js';
import { createPayloadValidator, type PayloadValidator } from './validate.js';

const validators = new WeakMap<ContractModel, PayloadValidator>();

/** `schema` selector (or a body selector's schema fallback): the one event whose schema accepts it. */
function bySchema(model: ContractModel, body: unknown): Selection {
  const data = model.envelope.kind === 'envelope' ? dotGet(body, envelopeFields(model.envelope).data) : body;
  if (model.events.length === 1) {
    const only = model.events[0] as EventModel;
    return { event: only, detail: only.name };
  }
  let validator = validators.get(model);
  if (validator === undefined) {
    validator = createPayloadValidator(model);
    validators.set(model, validator);
  }
  const v = validator;
  const accepted = model.events.filter((e) => v.validate(e.name, data).length === 0);
  if (accepted.length === 1)
    return { event: accepted[0] as EventModel, detail: (accepted[0] as EventModel).name };
  return {
    detail:
      accepted.length === 0
        ? 'no event of the contract has a payload schema that accepts the body'
        : `the body fits the schemas of ${accepted.map((e) => e.name).join(', ')}; the contract cannot tell them apart`,
    at: '',
  };
}

export function dotGet(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export function pointerOf(path: string): string {
  return `/${path
    .split('.')
    .map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1'))
    .join('/')}`;
}

export interface Selection {
  readonly event?: EventModel;
  readonly detail: string;
  readonly at?: string;
}

/** The event `selector` picks for this request (see `SelectorConfig` for the rules). */
export function selectEvent(
  model: ContractModel,
  selector: SelectorConfig,
  headers: HeadersInput,
  body: unknown,
): Selection {
  const names = model.events.map((e) => e.name).join(', ');
  if (selector.kind === 'header') {
    const value = getHeader(headers, selector.header);
    if (value === undefined)
      return {
        detail: `missing the ${selector.header} header that names the event`,
        at: selector.header.toLowerCase(),
      };
    const candidates = model.events.filter((e) => (e.match?.header ?? e.name) === value);
    const bodyValue = selector.bodyField ? dotGet(body, selector.bodyField) : undefined;
    const event =
      candidates.find((e) => e.match?.body !== undefined && e.match.body === bodyValue) ??
      candidates.find((e) => e.match?.body === undefined);
    if (event) return { event, detail: event.name };
    const what = selector.bodyField
      ? `${selector.header}: ${value} with ${selector.bodyField} = ${JSON.stringify(bodyValue)}`
      : `${selector.header}: ${value}`;
    return {
      detail: `unknown event (${what}); the contract has ${names}`,
      at: selector.header.toLowerCase(),
    };
  }
  if (selector.kind === 'schema') return bySchema(model, body);
  if (
    selector.kind === 'body' &&
    selector.fallback === 'schema' &&
    dotGet(body, selector.field) === undefined
  )
    return bySchema(model, body);
  const path =
    selector.kind === 'body'
      ? selector.field
      : model.envelope.kind === 'envelope'
        ? envelopeFields(model.envelope).type
        : 'type';
  const value = dotGet(body, path);
  const event =
    model.events.find((e) => (e.match?.body ?? e.name) === value) ??
    model.events.find((e) => e.name === value);
  if (event) return { event, detail: event.name };
  return {
    detail: `unknown event ${JSON.stringify(value)} at ${pointerOf(path)}; the contract has ${names}`,
    at: pointerOf(path),
  };
}
