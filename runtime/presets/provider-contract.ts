/**
 * Typed access for providers without a machine-readable contract: a `Contract` built from a preset
 * plus the user's schemas per event type, e.g.
 * `providerContract('stripe', { 'payment_intent.succeeded': z.object({ object: PaymentIntent }) })`.
 * Each schema describes what the handler receives: the envelope's `data` for enveloped providers
 * (Stripe: `{ object, previous_attributes? }`; Slack: the inner `event`), the whole body otherwise.
 */
import type { Contract, EventDefinition, StandardSchemaV1 } from '../contract.js';
import { WebhookError } from '../errors.js';
import { getProvider } from './registry.js';
import type { PresetName } from './types.js';

export type SchemaMap = { readonly [event: string]: StandardSchemaV1 };

/** The event map of a schema map: event name → the schema's output type. */
export type ProviderEvents<S extends SchemaMap> = {
  readonly [K in keyof S & string]: S[K] extends StandardSchemaV1<unknown, infer O> ? O : never;
};

export interface ProviderContractOptions {
  /** Contract name (default: the preset name). */
  readonly name?: string;
  readonly version?: string;
}

export function providerContract<S extends SchemaMap>(
  preset: PresetName,
  schemas: S,
  options: ProviderContractOptions = {},
): Contract<ProviderEvents<S>> {
  const provider = getProvider(preset);
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
    events[event] = { schema, match };
  }
  return {
    name: options.name ?? preset,
    ...(options.version === undefined ? {} : { version: options.version }),
    events: events as Contract<ProviderEvents<S>>['events'],
    signature: provider.signature,
    envelope: provider.envelope,
    selector: provider.selector,
  };
}
