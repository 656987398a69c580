/**
 * The provider's side of a preset delivery: what a test payload lacks for the preset's receiver to
 * take it as the intended event. Each filler adds only absent fields (the test's values win): the
 * type fields the preset selects on, the ids it dedupes by, and what some providers put where a
 * signature usually goes (Mailgun's signature block, Graph's clientState, Linear's signed
 * `webhookTimestamp`, Event Grid's `?code=`).
 */
import type { PresetName } from '../contract.js';
import { getDescriptor } from '../presets/catalog.js';
import { mailgunSignature } from '../presets/mailgun.js';
import type { PresetOptions } from '../presets/types.js';

type Json = Record<string, unknown>;

export interface PresetContext {
  readonly event: string;
  readonly id: string;
  /** Unix seconds. */
  readonly timestamp: number;
  /** The shared secret as text (Graph, Event Grid and Mailgun carry it, or a MAC by it, in the delivery). */
  readonly secret: string | undefined;
  readonly options: PresetOptions;
}

export interface PresetDelivery {
  readonly body: unknown;
  readonly headers: { readonly [name: string]: string };
  readonly url: (url: string) => string;
}

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Sets `path` (dot-separated) where it is absent, creating the objects on the way. */
function fill(target: Json, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    if (!isRecord(node[key])) node[key] = {};
    node = node[key] as Json;
  }
  const last = keys.at(-1) as string;
  if (node[last] === undefined) node[last] = value;
}

/** Each item of the body's event list (the body itself when it is one). */
function items(value: unknown): Json[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((item) => (isRecord(item) ? item : { value: item }));
}

const same = (url: string) => url;

export async function presetDelivery(
  preset: PresetName,
  payload: unknown,
  ctx: PresetContext,
): Promise<PresetDelivery> {
  const descriptor = getDescriptor(preset);
  const match = descriptor.match(ctx.event) ?? {};
  // A copy: the caller's payload object stays as it was.
  const body: unknown = payload === undefined ? {} : JSON.parse(JSON.stringify(payload));
  const headers: Record<string, string> = {};
  const selector = descriptor.selector;
  if (selector.kind === 'header') headers[selector.header.toLowerCase()] = match.header ?? ctx.event;
  const record = isRecord(body) ? body : undefined;
  const type = match.body ?? ctx.event;
  switch (preset) {
    case 'hubspot':
    case 'sendgrid': {
      const events = items(body);
      for (const event of events) {
        if (preset === 'hubspot') fill(event, 'subscriptionType', type);
        else fill(event, 'event', type);
      }
      return { body: events, headers, url: same };
    }
    case 'azure-event-grid': {
      const events = Array.isArray(body) ? items(body) : [record ?? {}];
      for (const event of events) {
        if (event['eventType'] === undefined) fill(event, 'type', type);
        fill(event, 'id', ctx.id);
      }
      const where = ctx.options.secretIn ?? { query: 'code' };
      const url = (base: string) =>
        'query' in where && ctx.secret !== undefined ? withQuery(base, where.query, ctx.secret) : base;
      return { body: Array.isArray(body) ? events : events[0], headers, url };
    }
    case 'microsoft-graph': {
      const root = record !== undefined && Array.isArray(record['value']) ? record : { value: [body] };
      const notifications = items(root['value']);
      for (const item of notifications) {
        fill(item, 'changeType', type);
        if (ctx.secret !== undefined) fill(item, 'clientState', ctx.secret);
      }
      return { body: { ...root, value: notifications }, headers, url: same };
    }
    case 'okta': {
      const root = record ?? {};
      fill(root, 'eventType', 'com.okta.event_hook');
      fill(root, 'data.events', [{}]);
      const events = items((root['data'] as Json)['events']);
      for (const event of events) {
        fill(event, 'eventType', type);
        fill(event, 'uuid', ctx.id);
      }
      (root['data'] as Json)['events'] = events;
      return { body: root, headers, url: same };
    }
    default:
      break;
  }
  if (record === undefined) return { body, headers, url: same };
  if (selector.kind === 'header') {
    if (selector.bodyField !== undefined && match.body !== undefined)
      fill(record, selector.bodyField, match.body);
  } else if (selector.kind === 'body') {
    fill(record, selector.field, type);
  }
  await fillProvider(preset, record, ctx);
  return { body: record, headers, url: same };
}

/** The fields a provider always sends that its receiver reads (ids, times, Mailgun's signature). */
async function fillProvider(preset: PresetName, body: Json, ctx: PresetContext): Promise<void> {
  const iso = new Date(ctx.timestamp * 1000).toISOString();
  switch (preset) {
    case 'stripe':
      fill(body, 'id', ctx.id);
      fill(body, 'object', 'event');
      fill(body, 'created', ctx.timestamp);
      return;
    case 'slack':
      fill(body, 'type', 'event_callback');
      fill(body, 'event_id', ctx.id);
      fill(body, 'event_time', ctx.timestamp);
      return;
    case 'discord':
      fill(body, 'version', 1);
      fill(body, 'application_id', '0');
      fill(body, 'type', 1);
      fill(body, 'event.timestamp', iso);
      return;
    case 'linear':
      fill(body, 'webhookTimestamp', ctx.timestamp * 1000);
      return;
    case 'mailgun':
      fill(body, 'event-data.id', ctx.id);
      if (body['signature'] === undefined && ctx.secret !== undefined)
        body['signature'] = await mailgunSignature(ctx.secret, ctx.timestamp, ctx.id);
      return;
    case 'square':
    case 'paddle':
      fill(body, 'event_id', ctx.id);
      return;
    case 'intercom':
      fill(body, 'id', ctx.id);
      return;
    default:
      return;
  }
}

function withQuery(url: string, name: string, value: string): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has(name)) parsed.searchParams.set(name, value);
  return parsed.href;
}
