/** Contract-level comparison: metadata, wire protocol (signature, envelope, selector), retry, events. */
import type { ContractModel, EventModel, JsonSchema } from '../model.js';
import { SchemaComparer } from './compare-schema.js';
import { RULE_BREAKS } from './rules.js';
import { fingerprint, isObj } from './schema-view.js';
import type { DiffChange, DiffLocation, DiffRule } from './types.js';

/** Headers absent = "any headers": compared as an open object so newly required headers are found. */
const NO_HEADERS: JsonSchema = { type: 'object' };

export function compareContracts(oldModel: ContractModel, newModel: ContractModel): DiffChange[] {
  const changes: DiffChange[] = [];
  const push = (
    rule: DiffRule,
    location: DiffLocation,
    pointer: string,
    message: string,
    extra: Partial<Pick<DiffChange, 'event' | 'keyword' | 'old' | 'new' | 'breaks'>> = {},
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

  const oldEvents = new Map(oldModel.events.map((e) => [e.name, e]));
  const newEvents = new Map(newModel.events.map((e) => [e.name, e]));
  const names = [...new Set([...oldEvents.keys(), ...newEvents.keys()])].sort();
  const comparer = new SchemaComparer(oldModel, newModel);
  for (const event of names) {
    const before = oldEvents.get(event);
    const after = newEvents.get(event);
    if (before && !after) {
      push('event-removed', 'event', '', `event "${event}" removed`, { event });
    } else if (!before && after) {
      push('event-added', 'event', '', `event "${event}" added`, { event });
    } else if (before && after) {
      compareEvent(before, after, event, push);
      for (const [location, a, b] of [
        ['payload', before.payload.schema, after.payload.schema],
        ['headers', before.headers?.schema ?? NO_HEADERS, after.headers?.schema ?? NO_HEADERS],
      ] as const) {
        for (const change of comparer.compare(a, b)) {
          const { rule, pointer, message, breaks, ...rest } = change;
          push(rule, location, pointer, message, { event, ...rest, ...(breaks ? { breaks } : {}) });
        }
      }
    }
  }
  return changes;
}

type Push = (
  rule: DiffRule,
  location: DiffLocation,
  pointer: string,
  message: string,
  extra?: Partial<Pick<DiffChange, 'event' | 'keyword' | 'old' | 'new'>>,
) => void;

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
