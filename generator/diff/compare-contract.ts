/** Contract-level comparison: metadata, wire protocol (signature, envelope, selector), retry, events. */
import type { ContractModel, EventModel, JsonSchema } from '../model.js';
import { SchemaComparer } from './compare-schema.js';
import { RULE_BREAKS } from './rules.js';
import { fingerprint, isObj } from './schema-view.js';
import type { Audience, DiffChange, DiffLocation, DiffRule } from './types.js';

/** Headers absent = "any headers": compared as an open object so newly required headers are found. */
const NO_HEADERS: JsonSchema = { type: 'object' };

export function compareContracts(oldModel: ContractModel, newModel: ContractModel): DiffChange[] {
  const changes: DiffChange[] = [];
  const push = (
    rule: DiffRule,
    location: DiffLocation,
    pointer: string,
    message: string,
    extra: Partial<Pick<DiffChange, 'event' | 'keyword' | 'old' | 'new' | 'breaks' | 'direction'>> = {},
  ) => {
    const { breaks, ...rest } = extra;
    changes.push({ rule, breaks: breaks ?? RULE_BREAKS[rule], location, pointer, message, ...rest });
  };

  for (const key of ['title', 'version', 'description'] as const) {
    if (oldModel[key] !== newModel[key]) {
      push('metadata-changed', 'contract', `/${key}`, `${key} changed`, {
        keyword: key,
        old: oldModel[key],
        new: newModel[key],
      });
    }
  }
  const protocol = [
    ['signature', 'signature-changed'],
    ['envelope', 'envelope-changed'],
    ['selector', 'selector-changed'],
  ] as const;
  for (const [key, rule] of protocol) {
    for (const [field, a, b] of differingFields(oldModel[key], newModel[key])) {
      push(rule, 'contract', `/${key}${field}`, `${key}${field.replace(/\//g, '.')} changed`, {
        old: a,
        new: b,
      });
    }
  }
  if (fingerprint(oldModel.retry) !== fingerprint(newModel.retry)) {
    push('retry-changed', 'contract', '/retry', 'retry schedule changed', {
      old: oldModel.retry,
      new: newModel.retry,
    });
  }

  const comparer = new SchemaComparer(oldModel, newModel);
  compareMessages(oldModel.events, newModel.events, comparer, push);
  if (oldModel.received !== undefined || newModel.received !== undefined) {
    const client: Push = (rule, location, pointer, message, extra = {}) =>
      push(rule, location, pointer, message, {
        ...extra,
        direction: 'client',
        breaks: clientBreaks(extra.breaks ?? RULE_BREAKS[rule], rule),
      });
    compareMessages(oldModel.received ?? [], newModel.received ?? [], comparer, client, 'client message');
  }
  return changes;
}

type Push = (
  rule: DiffRule,
  location: DiffLocation,
  pointer: string,
  message: string,
  extra?: Partial<Pick<DiffChange, 'event' | 'keyword' | 'old' | 'new' | 'breaks'>>,
) => void;

/**
 * Client messages flow the other way (the receivers' side writes them, the application reads them),
 * so a schema rule's audience is mirrored. Removing a message breaks its writers, the receivers' side,
 * as removing an event breaks its readers; adding one is safe either way.
 */
function clientBreaks(breaks: readonly Audience[], rule: DiffRule): readonly Audience[] {
  if (rule === 'event-removed' || rule === 'event-added') return breaks;
  return breaks.map((who) => (who === 'receivers' ? 'senders' : 'receivers')).sort();
}

/** Messages by name: removed, added, or compared field by field (payload and headers). */
function compareMessages(
  before: readonly EventModel[],
  after: readonly EventModel[],
  comparer: SchemaComparer,
  push: Push,
  noun = 'event',
): void {
  const oldEvents = new Map(before.map((e) => [e.name, e]));
  const newEvents = new Map(after.map((e) => [e.name, e]));
  const names = [...new Set([...oldEvents.keys(), ...newEvents.keys()])].sort();
  for (const event of names) {
    const a = oldEvents.get(event);
    const b = newEvents.get(event);
    if (a && !b) {
      push('event-removed', 'event', '', `${noun} "${event}" removed`, { event });
    } else if (!a && b) {
      push('event-added', 'event', '', `${noun} "${event}" added`, { event });
    } else if (a && b) {
      compareEvent(a, b, event, push);
      for (const [location, x, y] of [
        ['payload', a.payload.schema, b.payload.schema],
        ['headers', a.headers?.schema ?? NO_HEADERS, b.headers?.schema ?? NO_HEADERS],
      ] as const) {
        for (const change of comparer.compare(x, y)) {
          const { rule, pointer, message, breaks, ...rest } = change;
          push(rule, location, pointer, message, { event, ...rest, ...(breaks ? { breaks } : {}) });
        }
      }
    }
  }
}

function compareEvent(before: EventModel, after: EventModel, event: string, push: Push): void {
  if ((before.deprecated === true) !== (after.deprecated === true)) {
    const now = after.deprecated === true;
    push(
      now ? 'event-deprecated' : 'event-undeprecated',
      'event',
      '',
      `event ${now ? 'deprecated' : 'no longer deprecated'}`,
      {
        event,
        old: before.deprecated === true,
        new: now,
      },
    );
  }
  for (const keyword of ['summary', 'description'] as const) {
    if (before[keyword] !== after[keyword]) {
      push('docs-changed', 'event', '', `${keyword} changed`, {
        event,
        keyword,
        old: before[keyword],
        new: after[keyword],
      });
    }
  }
  if (fingerprint(before.examples) !== fingerprint(after.examples)) {
    push('docs-changed', 'event', '', 'examples changed', {
      event,
      keyword: 'examples',
      old: before.examples.length,
      new: after.examples.length,
    });
  }
  for (const [field, a, b] of differingFields(before.match ?? {}, after.match ?? {})) {
    push(
      'event-match-changed',
      'event',
      `/match${field}`,
      `selector value${field.replace(/\//g, ' ')} changed`,
      {
        event,
        old: a,
        new: b,
      },
    );
  }
}

/** Top-level fields whose values differ, as `[/field, old, new]`; a changed `kind` is one change. */
function differingFields(a: unknown, b: unknown): [string, unknown, unknown][] {
  if (fingerprint(a) === fingerprint(b)) return [];
  if (!isObj(a) || !isObj(b) || a.kind !== b.kind) return [['', a, b]];
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys
    .filter((k) => fingerprint(a[k]) !== fingerprint(b[k]))
    .map((k) => [`/${k}`, a[k], b[k]] as [string, unknown, unknown]);
}
