/**
 * The two directions of an AsyncAPI document (WebSocket-style APIs declare both): the messages the
 * application sends are the webhook events, the ones it receives from its clients are kept apart
 * (`ContractModel.received`). A document with one direction — whichever it is, many webhook
 * documents use 2.x `publish` for what the provider sends — has only events, as before.
 */
import type { Direction } from '../model.js';
import type { EventDraft } from './context.js';

/** Two uses of one message (same identity): `both` when their directions differ. */
export function mergeDirection(
  a: EventDraft['direction'],
  b: EventDraft['direction'],
): EventDraft['direction'] {
  if (a === undefined || b === undefined || a === b) return a ?? b;
  return 'both';
}

export interface SplitDrafts {
  readonly events: readonly EventDraft[];
  /** Only when the document has both directions. */
  readonly received?: readonly EventDraft[];
}

export function splitDirections(drafts: readonly EventDraft[]): SplitDrafts {
  const sends = drafts.some((d) => d.direction === 'send' || d.direction === 'both');
  const receives = drafts.some((d) => d.direction === 'receive' || d.direction === 'both');
  if (!(sends && receives)) return { events: drafts.map(withoutDirection) };
  // A message without an operation (none in a two-way document, but kept safe) counts as sent.
  const direction = (d: EventDraft): Direction => d.direction ?? 'send';
  return {
    events: drafts.filter((d) => direction(d) !== 'receive'),
    received: drafts.filter((d) => direction(d) !== 'send'),
  };
}

function withoutDirection(draft: EventDraft): EventDraft {
  if (draft.direction === undefined) return draft;
  const { direction: _direction, ...rest } = draft;
  return rest;
}
