/** An endpoint as API clients see it: never its secrets. */
import { redactUrl } from '../deliver/destinations/redact.js';
import type { DisabledReason, Endpoint } from '../deliver/outbox.js';

export interface EndpointView {
  readonly id: string;
  readonly tenant: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly enabled: boolean;
  readonly disabledReason: DisabledReason | null;
  /** When the endpoint last passed verification at its URL (ISO 8601); null = never. */
  readonly verifiedAt: string | null;
  readonly consecutiveFailures: number;
  /** When the current failure streak began (ISO 8601); null while the last attempt succeeded. */
  readonly failingSince: string | null;
  readonly rateLimit: number | null;
  readonly description: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

const isoOrNull = (ms: number | undefined): string | null =>
  ms === undefined ? null : new Date(ms).toISOString();

export function toEndpointView(endpoint: Endpoint): EndpointView {
  return {
    id: endpoint.id,
    tenant: endpoint.tenant,
    // A broker destination's credentials are never shown back: `amqp://***@host/…`.
    url: redactUrl(endpoint.url),
    events: endpoint.events,
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason ?? null,
    verifiedAt: isoOrNull(endpoint.verifiedAt),
    consecutiveFailures: endpoint.consecutiveFailures,
    failingSince: isoOrNull(endpoint.failingSince),
    rateLimit: endpoint.rateLimit ?? null,
    description: endpoint.description ?? null,
    createdAt: new Date(endpoint.createdAt).toISOString(),
    updatedAt: new Date(endpoint.updatedAt).toISOString(),
  };
}
