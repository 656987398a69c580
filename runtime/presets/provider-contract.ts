/**
 * Typed access for providers without a machine-readable contract: a `Contract` built from a preset
 * plus the user's schemas per event type, e.g.
 *
 *   providerContract('stripe', { 'payment_intent.succeeded': z.object({ id: z.string(), amount: z.number() }) })
 *
 * Each schema describes the part of the delivery users work with; handlers receive the whole body,
 * typed:
 * - stripe: the schema is the resource (`data.object`); handlers get a `StripeEvent<type, T>`.
 * - slack: the schema is the inner `event`; handlers get a `SlackEventCallback<T>`.
 * - discord (webhook events): the schema is `event.data`; handlers get a `DiscordWebhookEvent<type, T>`.
 * - every other preset: the schema is the body itself.
 */
import type { Contract, EventDefinition, StandardSchemaV1 } from '../contract.js';
import { WebhookError } from '../errors.js';
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import { getDescriptor } from './catalog.js';
import type { PresetName } from './types.js';

export type SchemaMap = { readonly [event: string]: StandardSchemaV1 };

type Output<S> = S extends StandardSchemaV1<unknown, infer O> ? O : never;

/** A Stripe event whose resource (`data.object`) has been validated as `T`. */
export interface StripeEvent<Type extends string = string, T = unknown> {
  readonly id: string;
  readonly type: Type;
  /** Unix seconds. */
  readonly created: number;
  readonly data: {
    readonly object: T;
    readonly previous_attributes?: { readonly [field: string]: unknown };
    readonly [key: string]: unknown;
  };
  readonly [key: string]: unknown;
}

/** A Slack Events API `event_callback` whose inner `event` has been validated as `T`. */
export interface SlackEventCallback<T = unknown> {
  readonly type: 'event_callback';
  readonly event_id: string;
  /** Unix seconds. */
  readonly event_time: number;
  readonly event: T;
  readonly [key: string]: unknown;
}

/** A Discord webhook event (`type: 1`) whose `event.data` has been validated as `T`. */
export interface DiscordWebhookEvent<Type extends string = string, T = unknown> {
  readonly version: number;
  readonly application_id: string;
  readonly type: 1;
  readonly event: {
    readonly type: Type;
    /** ISO 8601. */
    readonly timestamp: string;
    readonly data: T;
  };
}

/** The event map of a schema map: event name → what the handler receives. */
export type ProviderEvents<P extends PresetName, S extends SchemaMap> = {
  readonly [K in keyof S & string]: P extends 'stripe'
    ? StripeEvent<K, Output<S[K]>>
    : P extends 'slack'
      ? SlackEventCallback<Output<S[K]>>
      : P extends 'discord'
        ? DiscordWebhookEvent<K, Output<S[K]>>
        : Output<S[K]>;
};

export interface ProviderContractOptions {
  /** Contract name (default: the preset name). It prefixes dedupe keys. */
  readonly name?: string;
  readonly version?: string;
}

const PROVIDER_CONTRACT_KEYS = {
  name: true,
  version: true,
} as const satisfies KnownKeys<ProviderContractOptions>;

type OuterCheck = (body: Record<string, unknown>) => StandardSchemaV1.Issue[];

const DISCORD_EVENT_FIELDS: { readonly [name: string]: 'string' | 'number' } = {
  type: 'string',
  timestamp: 'string',
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireFields(fields: { readonly [name: string]: 'string' | 'number' }): OuterCheck {
  return (body) =>
    Object.entries(fields).flatMap(([name, type]) =>
      typeof body[name] === type ? [] : [{ message: `Expected a ${type}`, path: [name] }],
    );
}

/**
 * A Standard Schema for the whole body that validates the outer fields and applies `inner` at `path`,
 * replacing that part with the inner schema's output (zod transforms and defaults apply there).
 */
function nestedSchema(inner: StandardSchemaV1, path: readonly string[], outer: OuterCheck): StandardSchemaV1 {
  const validate = (
    value: unknown,
  ): StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>> => {
    if (!isRecord(value)) return { issues: [{ message: 'Expected an object' }] };
    const issues = outer(value);
    const parents: Record<string, unknown>[] = [value];
    let node: unknown = value;
    for (const [depth, key] of path.entries()) {
      if (!isRecord(node))
        return { issues: [...issues, { message: 'Expected an object', path: path.slice(0, depth) }] };
      parents.push(node);
      node = node[key];
    }
    if (!isRecord(parents.at(-1))) return { issues };
    const settle = (result: StandardSchemaV1.Result<unknown>): StandardSchemaV1.Result<unknown> => {
      const all = [
        ...issues,
        ...(result.issues ?? []).map((issue) => ({
          message: issue.message,
          path: [...path, ...(issue.path ?? [])],
        })),
      ];
      if (all.length > 0 || result.issues !== undefined) return { issues: all };
      // Rebuild the objects along the path around the inner output (the input is not mutated).
      let rebuilt: unknown = result.value;
      for (let depth = path.length - 1; depth >= 0; depth--) {
        rebuilt = { ...(parents[depth + 1] as Record<string, unknown>), [path[depth] as string]: rebuilt };
      }
      return { value: rebuilt };
    };
    const result = inner['~standard'].validate(node);
    return result instanceof Promise ? result.then(settle) : settle(result);
  };
  return { '~standard': { version: 1, vendor: 'gen-webhooks', validate } };
}

function wrap(preset: PresetName, schema: StandardSchemaV1): StandardSchemaV1 {
  if (preset === 'stripe') {
    return nestedSchema(
      schema,
      ['data', 'object'],
      requireFields({ id: 'string', type: 'string', created: 'number' }),
    );
  }
  if (preset === 'slack') {
    return nestedSchema(schema, ['event'], requireFields({ event_id: 'string', event_time: 'number' }));
  }
  if (preset === 'discord') {
    const top = requireFields({ version: 'number', application_id: 'string' });
    const inner = requireFields(DISCORD_EVENT_FIELDS);
    return nestedSchema(schema, ['event', 'data'], (body) => [
      ...top(body),
      ...(body['type'] === 1 ? [] : [{ message: 'Expected 1 (an event)', path: ['type'] }]),
      ...(isRecord(body['event'])
        ? inner(body['event']).map((issue) => ({ ...issue, path: ['event', ...(issue.path ?? [])] }))
        : []),
    ]);
  }
  return schema;
}

export function providerContract<P extends PresetName, S extends SchemaMap>(
  preset: P,
  schemas: S,
  options: ProviderContractOptions = {},
): Contract<ProviderEvents<P, S>> {
  checkKnownOptions('providerContract', options, PROVIDER_CONTRACT_KEYS);
  const provider = getDescriptor(preset);
  const events: Record<string, EventDefinition> = {};
  for (const [event, schema] of Object.entries(schemas)) {
    if (schema === null || typeof schema !== 'object' || !('~standard' in schema)) {
      throw new WebhookError(
        'invalid_config',
        `providerContract: the schema of "${event}" is not a Standard Schema`,
      );
    }
    const match = provider.match(event);
    if (match === undefined) {
      throw new WebhookError('invalid_config', `providerContract: "${event}" is not a ${preset} event name`);
    }
    events[event] = { schema: wrap(preset, schema), match };
  }
  return {
    name: options.name ?? preset,
    ...(options.version === undefined ? {} : { version: options.version }),
    events: events as Contract<ProviderEvents<P, S>>['events'],
    signature: provider.signature,
    envelope: provider.envelope,
    selector: provider.selector,
  };
}
