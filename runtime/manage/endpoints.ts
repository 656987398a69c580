/**
 * Endpoint management as a programmatic API, acting for one tenant: register (URL rules and SSRF
 * checks applied, event names checked against the contract, a secret generated), list, get, update,
 * delete, rotate the secret with an overlap, re-enable, list attempts, redeliver. Every call sees the
 * tenant's own endpoints only; another tenant's id is `not_found`. The HTTP handler (handler.ts) is a
 * thin layer on it.
 */
import type { Contract, EventMapBase } from '../contract.js';
import { isDestinationUrl, keepCredentials } from '../deliver/destinations/redact.js';
import type { AttemptRecord, Endpoint, EndpointPatch, Outbox } from '../deliver/outbox.js';
import { randomId } from '../deliver/random-id.js';
import { generateEndpointSecret } from '../deliver/secrets.js';
import { resolveTenant } from '../deliver/tenant.js';
import { compileUrlPolicy, type UrlPolicy } from '../deliver/url-policy.js';
import { URL_POLICY_KEYS } from '../deliver/worker-keys.js';
import { WebhookError } from '../errors.js';
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import { checkRegisteredUrl, type ManagerLogger } from './check-target.js';
import { createVerifier, type VerificationOption } from './verify-endpoint.js';
import { createVerified, verifyNewUrl, verifyStored } from './verify-flow.js';
import { type EndpointView, toEndpointView } from './view.js';

export { type EndpointView, toEndpointView } from './view.js';

/** Default overlap during which a rotated-out secret still signs: 24 hours. */
export const DEFAULT_ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface EndpointManagerOptions {
  readonly outbox: Outbox;
  /**
   * The tenant this manager acts for. Required with a multi-tenant outbox; a single-tenant one
   * defaults it to `DEFAULT_TENANT`. `forTenant(t)` gives the same manager for another tenant.
   */
  readonly tenant?: string;
  /** Event names are checked against `contract.events`; `contract.signature` picks the secret format. */
  readonly contract?: Pick<Contract<EventMapBase>, 'name' | 'events' | 'signature'>;
  readonly urlPolicy?: UrlPolicy;
  /** Resolve the host at registration and refuse internal addresses (default true; attempts re-check). */
  readonly resolveOnRegister?: boolean;
  /** Gets refused URLs with what their host resolved to (the caller is told only "not public"). Default console. */
  readonly logger?: ManagerLogger;
  readonly rotationOverlapMs?: number;
  readonly now?: () => number;
  readonly generateSecret?: () => string;
  /**
   * Verify an endpoint before it is enabled (docs/sender.md, "Endpoint verification"): `'event'` (a
   * signed `webhook.verification` challenge to echo) or `{ mode: 'cloudevents', origin }` (the
   * CloudEvents `OPTIONS` handshake). Default `'none'`: registered endpoints are enabled at once.
   */
  readonly verification?: VerificationOption;
}

export interface RegisterInput {
  readonly url: string;
  /** Event names; `*` is every event — of this tenant's sends only. */
  readonly events: readonly string[];
  readonly description?: string;
  readonly rateLimit?: number;
}

/** Omitted fields stay; `null` clears the description or the rate limit. */
export interface UpdateInput {
  readonly url?: string;
  readonly events?: readonly string[];
  readonly description?: string | null;
  readonly rateLimit?: number | null;
}

export interface EndpointManager {
  readonly tenant: string;
  /** The same manager acting for another tenant (the HTTP handler makes one per caller). */
  forTenant(tenant: string): EndpointManager;
  register(input: RegisterInput): Promise<{ endpoint: EndpointView; secret: string }>;
  list(): Promise<EndpointView[]>;
  get(id: string): Promise<EndpointView>;
  update(id: string, input: UpdateInput): Promise<EndpointView>;
  remove(id: string): Promise<void>;
  rotateSecret(id: string, overlapMs?: number): Promise<{ secret: string; previousSecretExpiresAt: string }>;
  /**
   * With verification on, an endpoint never verified at its URL (no `verifiedAt`, whatever disabled
   * it) is verified first: success records it and enables, failure is `endpoint_unverified` and
   * changes nothing.
   */
  enable(id: string): Promise<EndpointView>;
  /** Runs the verification again and records it; success enables an endpoint disabled as `unverified`. */
  verify(id: string): Promise<EndpointView>;
  attempts(id: string, limit?: number): Promise<AttemptRecord[]>;
  redeliver(id: string, target: { messageId: string } | { from?: number; to?: number }): Promise<number>;
}

/** The manager's keys that every factory built on its options takes (all but `tenant`). */
export const MANAGER_SHARED_KEYS = {
  outbox: true,
  contract: true,
  urlPolicy: true,
  resolveOnRegister: true,
  logger: true,
  rotationOverlapMs: true,
  now: true,
  generateSecret: true,
  verification: true,
} as const satisfies KnownKeys<Omit<EndpointManagerOptions, 'tenant'>>;

const MANAGER_KEYS = {
  ...MANAGER_SHARED_KEYS,
  tenant: true,
} as const satisfies KnownKeys<EndpointManagerOptions>;

type VerificationObject = Exclude<VerificationOption, string>;

/** The keys of each `verification` object, by its `mode` (an `origin` is no `event` option). */
const VERIFICATION_KEYS: {
  readonly [M in VerificationObject['mode']]: KnownKeys<Extract<VerificationObject, { readonly mode: M }>>;
} = {
  event: { mode: true, timeoutMs: true },
  cloudevents: { mode: true, origin: true, requestRate: true, timeoutMs: true },
};

/**
 * Refuses unknown option keys (known-options.ts) of a factory built on the manager's options
 * (`createEndpointManager`, `createManagementHandler`, `createPortalHandler`): its own `known` ones,
 * then those of `urlPolicy` and of a `verification` object of a known mode.
 */
export function checkManagerOptions(
  factory: string,
  options: Pick<EndpointManagerOptions, 'urlPolicy' | 'verification'>,
  known: { readonly [key: string]: true },
): void {
  checkKnownOptions(factory, options, known);
  if (options === null || typeof options !== 'object') return;
  checkKnownOptions(factory, options.urlPolicy, URL_POLICY_KEYS, undefined, 'urlPolicy');
  const verification: unknown = options.verification;
  if (verification === null || typeof verification !== 'object') return;
  const mode = (verification as { mode?: unknown }).mode;
  if (mode === 'event' || mode === 'cloudevents') {
    checkKnownOptions(factory, verification, VERIFICATION_KEYS[mode], undefined, 'verification');
  }
}

export function createEndpointManager(options: EndpointManagerOptions): EndpointManager {
  checkManagerOptions('createEndpointManager', options, MANAGER_KEYS);
  const forTenant = managerFactory(options);
  return forTenant(resolveTenant(options.outbox.tenancy, options.tenant, 'createEndpointManager'));
}

/** Shared state (URL policy, contract) compiled once; one manager per tenant on top of it. */
export function managerFactory(options: EndpointManagerOptions): (tenant: string) => EndpointManager {
  const { outbox, contract } = options;
  const now = options.now ?? Date.now;
  const policy = compileUrlPolicy(options.urlPolicy);
  const overlapDefault = options.rotationOverlapMs ?? DEFAULT_ROTATION_OVERLAP_MS;
  const newSecret = options.generateSecret ?? (() => generateEndpointSecret(contract?.signature));
  const verifier = createVerifier(options.verification, {
    signature: contract?.signature ?? { kind: 'standard-webhooks' },
    policy,
    now,
  });

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
  const checkTarget = async (url: string) => {
    await checkRegisteredUrl(url, policy, {
      resolve: options.resolveOnRegister !== false,
      logger: options.logger,
    });
    return new URL(url).href;
  };
  const missing = (id: string) => new WebhookError('not_found', `No endpoint "${id}"`, { details: { id } });

  const make = (tenantName: string): EndpointManager => {
    const tenant = resolveTenant('multi', tenantName, 'forTenant');
    const scope = { tenant };
    const found = async (id: string): Promise<Endpoint> => {
      const endpoint = await outbox.getEndpoint(id, scope);
      if (!endpoint) throw missing(id);
      return endpoint;
    };
    return {
      tenant,
      forTenant: make,
      async register(input) {
        checkEvents(input.events);
        const url = await checkTarget(input.url);
        const secret = newSecret();
        const fields = {
          tenant,
          url,
          events: [...new Set(input.events)],
          secret,
          ...(input.rateLimit !== undefined ? { rateLimit: input.rateLimit } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
        };
        // A broker has no HTTP handshake to answer: its publish confirms are its health check.
        const endpoint =
          verifier.mode === 'none' || isDestinationUrl(url)
            ? await outbox.createEndpoint(fields, now())
            : await createVerified(outbox, verifier, { ...fields, id: randomId('ep') }, now);
        return { endpoint: toEndpointView(endpoint), secret };
      },
      async list() {
        return (await outbox.listEndpoints(scope)).map(toEndpointView);
      },
      async get(id) {
        return toEndpointView(await found(id));
      },
      async update(id, input) {
        if (input.events !== undefined) checkEvents(input.events);
        // `amqp://***@host/…` as shown back keeps the stored credentials (the portal's edit form).
        const sent = input.url?.includes('***@')
          ? keepCredentials(input.url, (await found(id)).url)
          : input.url;
        const url = sent !== undefined ? await checkTarget(sent) : undefined;
        let rateLimit = input.rateLimit;
        let verified: EndpointPatch['verified'];
        if (url !== undefined && verifier.mode !== 'none' && !isDestinationUrl(url)) {
          // A new URL is verified before it is stored (and stored verified): verification cannot be
          // bypassed by a PATCH. Unverified, the outbox clears `verifiedAt` on a URL change.
          const endpoint = await found(id);
          if (url !== endpoint.url) {
            ({ rateLimit, verified } = await verifyNewUrl(verifier, endpoint, url, rateLimit, now));
          }
        }
        const patch: EndpointPatch = {
          ...(url !== undefined ? { url } : {}),
          ...(input.events !== undefined ? { events: [...new Set(input.events)] } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(rateLimit !== undefined ? { rateLimit } : {}),
          ...(verified !== undefined ? { verified } : {}),
        };
        const endpoint = await outbox.updateEndpoint(id, patch, now(), scope);
        if (!endpoint) throw missing(id);
        return toEndpointView(endpoint);
      },
      async remove(id) {
        if (!(await outbox.deleteEndpoint(id, scope))) throw missing(id);
      },
      async rotateSecret(id, overlapMs = overlapDefault) {
        if (!Number.isFinite(overlapMs) || overlapMs < 0) {
          throw new WebhookError('invalid_argument', 'overlap must be a non-negative duration');
        }
        const secret = newSecret();
        const at = now();
        const endpoint = await outbox.rotateSecret(id, secret, at, at + overlapMs, scope);
        if (!endpoint) throw missing(id);
        return { secret, previousSecretExpiresAt: new Date(at + overlapMs).toISOString() };
      },
      async enable(id) {
        if (verifier.mode !== 'none') {
          // Verification is a fact of the endpoint, not a disable reason (a Disable replaces the
          // reason): one never verified at its URL is challenged before it gets any delivery.
          const stored = await found(id);
          if (stored.verifiedAt === undefined && !isDestinationUrl(stored.url)) {
            return toEndpointView(await verifyStored(outbox, verifier, stored, now, scope, true));
          }
        }
        const endpoint = await outbox.enableEndpoint(id, now(), scope);
        if (!endpoint) throw missing(id);
        return toEndpointView(endpoint);
      },
      async verify(id) {
        return toEndpointView(await verifyStored(outbox, verifier, await found(id), now, scope));
      },
      async attempts(id, limit = 50) {
        await found(id);
        return outbox.listAttempts({ endpointId: id, limit, tenant });
      },
      async redeliver(id, target) {
        await found(id);
        if ('messageId' in target)
          return outbox.redeliver({ messageId: target.messageId, endpointId: id }, now(), scope);
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
          scope,
        );
      },
    };
  };
  return make;
}
