/**
 * Endpoint management as a programmatic API: register (URL rules and SSRF checks applied, event
 * names checked against the contract, a secret generated), list, get, delete, rotate the secret with
 * an overlap, re-enable, list attempts, redeliver. The HTTP handler (handler.ts) is a thin layer on it.
 */
import type { Contract, EventMapBase } from '../contract.js';
import type { AttemptRecord, DisabledReason, Endpoint, Outbox } from '../deliver/outbox.js';
import { generateEndpointSecret } from '../deliver/secrets.js';
import { checkUrl, compileUrlPolicy, resolveTarget, type UrlPolicy } from '../deliver/url-policy.js';
import { WebhookError } from '../errors.js';

/** Default overlap during which a rotated-out secret still signs: 24 hours. */
export const DEFAULT_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface EndpointManagerOptions {
  readonly outbox: Outbox;
  /** Event names are checked against `contract.events`; `contract.signature` picks the secret format. */
  readonly contract?: Pick<Contract<EventMapBase>, 'name' | 'events' | 'signature'>;
  readonly urlPolicy?: UrlPolicy;
  /** Resolve the host at registration and refuse internal addresses (default true; attempts re-check). */
  readonly resolveOnRegister?: boolean;
  readonly rotationOverlapMs?: number;
  readonly now?: () => number;
  readonly generateSecret?: () => string;
}

export interface RegisterInput {
  readonly url: string;
  readonly events: readonly string[];
  readonly description?: string;
  readonly rateLimit?: number;
}

/** An endpoint as shown to API clients: no secrets. */
export interface EndpointView {
  readonly id: string;
  readonly url: string;
  readonly events: readonly string[];
  readonly enabled: boolean;
  readonly disabledReason: DisabledReason | null;
  readonly consecutiveFailures: number;
  readonly rateLimit: number | null;
  readonly description: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface EndpointManager {
  register(input: RegisterInput): Promise<{ endpoint: EndpointView; secret: string }>;
  list(): Promise<EndpointView[]>;
  get(id: string): Promise<EndpointView>;
  remove(id: string): Promise<void>;
  rotateSecret(id: string, overlapMs?: number): Promise<{ secret: string; previousSecretExpiresAt: string }>;
  enable(id: string): Promise<EndpointView>;
  attempts(id: string, limit?: number): Promise<AttemptRecord[]>;
  redeliver(id: string, target: { messageId: string } | { from?: number; to?: number }): Promise<number>;
}

export function toEndpointView(endpoint: Endpoint): EndpointView {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason ?? null,
    consecutiveFailures: endpoint.consecutiveFailures,
    rateLimit: endpoint.rateLimit ?? null,
    description: endpoint.description ?? null,
    createdAt: new Date(endpoint.createdAt).toISOString(),
    updatedAt: new Date(endpoint.updatedAt).toISOString(),
  };
}

export function createEndpointManager(options: EndpointManagerOptions): EndpointManager {
  const { outbox, contract } = options;
  const now = options.now ?? Date.now;
  const policy = compileUrlPolicy(options.urlPolicy);
  const overlapDefault = options.rotationOverlapMs ?? DEFAULT_ROTATION_OVERLAP_MS;
  const newSecret = options.generateSecret ?? (() => generateEndpointSecret(contract?.signature));

  const found = async (id: string): Promise<Endpoint> => {
    const endpoint = await outbox.getEndpoint(id);
    if (!endpoint) throw new WebhookError('not_found', `No endpoint "${id}"`, { details: { id } });
    return endpoint;
  };

  const checkEvents = (events: readonly string[]) => {
    if (events.length === 0)
      throw new WebhookError('invalid_argument', 'events must list at least one event');
    if (!contract) return;
    const unknown = events.filter((e) => e !== '*' && !Object.hasOwn(contract.events, e));
    if (unknown.length > 0) {
      throw new WebhookError('unknown_event', `Unknown event(s): ${unknown.join(', ')}`, {
        details: { pointer: '/events', unknown, known: Object.keys(contract.events) },
      });
    }
  };

  return {
    async register(input) {
      checkEvents(input.events);
      if (options.resolveOnRegister === false) {
        checkUrl(input.url, policy);
      } else {
        await resolveTarget(input.url, policy);
      }
      const secret = newSecret();
      const endpoint = await outbox.createEndpoint(
        {
          url: new URL(input.url).href,
          events: [...new Set(input.events)],
          secret,
          ...(input.rateLimit !== undefined ? { rateLimit: input.rateLimit } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
        },
        now(),
      );
      return { endpoint: toEndpointView(endpoint), secret };
    },
    async list() {
      return (await outbox.listEndpoints()).map(toEndpointView);
    },
    async get(id) {
      return toEndpointView(await found(id));
    },
    async remove(id) {
      if (!(await outbox.deleteEndpoint(id))) throw new WebhookError('not_found', `No endpoint "${id}"`);
    },
    async rotateSecret(id, overlapMs = overlapDefault) {
      if (!Number.isFinite(overlapMs) || overlapMs < 0) {
        throw new WebhookError('invalid_argument', 'overlap must be a non-negative duration');
      }
      const secret = newSecret();
      const at = now();
      const endpoint = await outbox.rotateSecret(id, secret, at, at + overlapMs);
      if (!endpoint) throw new WebhookError('not_found', `No endpoint "${id}"`);
      return { secret, previousSecretExpiresAt: new Date(at + overlapMs).toISOString() };
    },
    async enable(id) {
      const endpoint = await outbox.enableEndpoint(id, now());
      if (!endpoint) throw new WebhookError('not_found', `No endpoint "${id}"`);
      return toEndpointView(endpoint);
    },
    async attempts(id, limit = 50) {
      await found(id);
      return outbox.listAttempts({ endpointId: id, limit });
    },
    async redeliver(id, target) {
      await found(id);
      if ('messageId' in target)
        return outbox.redeliver({ messageId: target.messageId, endpointId: id }, now());
      if (target.from !== undefined && target.to !== undefined && target.from >= target.to) {
        throw new WebhookError('invalid_argument', '"from" must be before "to"');
      }
      return outbox.redeliver(
        {
          endpointId: id,
          ...(target.from !== undefined ? { from: target.from } : {}),
          ...(target.to !== undefined ? { to: target.to } : {}),
        },
        now(),
      );
    },
  };
}
