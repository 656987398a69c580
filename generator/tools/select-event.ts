/**
 * Which event of a contract a request is, by the contract's selector (see `SelectorConfig`): the
 * envelope's type field, a body field, or a header plus an optional body field (GitHub's
 * `X-GitHub-Event` + `action`). Used by listen to name what it received and by send to check that
 * what it built selects the intended event.
 */
import type { HeadersInput, SelectorConfig } from '@gen-webhooks/runtime';
import { envelopeFields, getHeader } from '@gen-webhooks/runtime';
import type { ContractModel, EventModel } from '../model.js';

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
  const path =
    selector.kind === 'body'
      ? selector.field
      : model.envelope.kind === 'envelope'
        ? envelopeFields(model.envelope).type
        : 'type';
  const value = dotGet(body, path);
  const event = model.events.find((e) => (e.match?.body ?? e.name) === value);
  if (event) return { event, detail: event.name };
  return {
    detail: `unknown event ${JSON.stringify(value)} at ${pointerOf(path)}; the contract has ${names}`,
    at: pointerOf(path),
  };
}
