/**
 * `createSender(contract, options)`: what generated `create<Name>Sender` calls. `send` validates the
 * payload against the contract, builds the envelope, and persists the message plus one delivery per
 * subscribed endpoint in the outbox before it resolves (inside the caller's transaction when given
 * `tx`). Workers deliver from there. `sendNow` is the store-less path for scripts.
 */
import { nextDelay } from '../backoff.js';
import { DEFAULT_TIMEOUT_MS } from '../classify.js';
import type { BackoffConfig, Contract, EventMapBase, StandardSchemaV1 } from '../contract.js';
import { buildEnvelope } from '../envelope.js';
import { WebhookError } from '../errors.js';
import { newMessageId } from '../id.js';
import { checkKnownOptions, type ExactKeys, type KnownKeys } from '../known-options.js';
import { metricsOn, recordDelivery, traceEnqueue } from '../otel/send-hooks.js';
import type { HttpAgents } from './http-attempt.js';
import type { EndpointSecret, Outbox, RedeliverTarget, TenantScope } from './outbox.js';
import { type PerformedAttempt, performAttempt, SchemeCache } from './perform-attempt.js';
import { SENDER_KEYS } from './sender-keys.js';
import { resolveTenant } from './tenant.js';
import { compileUrlPolicy, type UrlPolicy } from './url-policy.js';
import { checkRetryKeys, URL_POLICY_KEYS } from './worker-keys.js';

export type ValidationMode = 'strict' | 'report' | 'off';

/** Default cap of one serialised payload (bytes). */
export const DEFAULT_MAX_PAYLOAD_BYTES = 256 * 1024;

/** `sendNow`'s default schedule: 4 attempts — immediately, then retries after 1, 2 and 4 seconds. */
export const SEND_NOW_SCHEDULE: BackoffConfig = {
  kind: 'exponential',
  initialDelay: 1,
  factor: 2,
  maxDelay: 4,
  maxAttempts: 4,
};

export interface SenderOptions {
  /** Where `send` persists messages; required for `send`, not for `sendNow`. */
  readonly outbox?: Outbox;
  /** `strict` (default) refuses a payload that breaks the contract; `report` sends it and calls `onInvalid`. */
  readonly validation?: ValidationMode;
  readonly onInvalid?: (error: WebhookError) => void;
  readonly maxPayloadBytes?: number;
  /** Used by `sendNow` (the outbox worker has its own). */
  readonly urlPolicy?: UrlPolicy;
  readonly timeoutMs?: number;
  readonly agents?: HttpAgents;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly rng?: () => number;
  readonly generateId?: () => string;
}

export interface SendOptions {
  /** Message id (default a new `msg_…`). Sending the same id again is a no-op returning the first result. */
  readonly id?: string;
  /** Transaction handle: a pg client inside the caller's BEGIN, or the better-sqlite3 db in its transaction. */
  readonly tx?: unknown;
  /** Restrict to these endpoint ids (subscriptions still apply). */
  readonly endpoints?: readonly string[];
  /**
   * Fan out to this tenant's subscribed endpoints only. Required by a multi-tenant outbox
   * (`tenant_required` otherwise); a single-tenant outbox sends to the default tenant's.
   */
  readonly tenant?: string;
  /**
   * Ordered delivery (FIFO per key and endpoint): a delivery with this key is attempted only once
   * every earlier delivery with the same key to the same endpoint is finished, so a later message
   * waits while an earlier one retries. Finished means succeeded or dead: a dead-lettered message
   * releases the key (the next one goes out), and redelivering it puts it back in its place.
   * "Earlier" is the order sends were stored (committed, for a send inside `tx`).
   */
  readonly orderingKey?: string;
}

export interface SendResult {
  readonly messageId: string;
  /** One per subscribed endpoint; empty when no endpoint subscribes to the event. */
  readonly deliveryIds: readonly string[];
}

export interface SendNowOptions {
  readonly url: string;
  /** One secret, or several (all sign, as during a rotation). */
  readonly secret: string | readonly string[];
  readonly id?: string;
  /** Default `SEND_NOW_SCHEDULE`. */
  readonly retry?: BackoffConfig;
}

export interface SendNowResult {
  readonly messageId: string;
  readonly delivered: boolean;
  readonly attempts: readonly PerformedAttempt[];
}

export interface Sender<M extends EventMapBase> {
  readonly contract: Contract<M>;
  send<K extends keyof M & string>(type: K, data: M[K], options?: SendOptions): Promise<SendResult>;
  /** Signs and delivers directly with in-process retries; no outbox, nothing survives a crash. */
  sendNow<K extends keyof M & string>(type: K, data: M[K], options: SendNowOptions): Promise<SendNowResult>;
  /** Redelivers a message, a delivery, or an endpoint's dead letters in a time range (of one tenant if given). */
  redeliver(target: RedeliverTarget, scope?: TenantScope): Promise<number>;
}

const SEND_KEYS = {
  id: true,
  tx: true,
  endpoints: true,
  tenant: true,
  orderingKey: true,
} as const satisfies KnownKeys<SendOptions>;

const SEND_NOW_KEYS = {
  url: true,
  secret: true,
  id: true,
  retry: true,
} as const satisfies KnownKeys<SendNowOptions>;

export function createSender<M extends EventMapBase>(
  contract: Contract<M>,
  options: SenderOptions = {},
): Sender<M> {
  checkKnownOptions(
    'createSender',
    options,
    SENDER_KEYS satisfies ExactKeys<typeof SENDER_KEYS, SenderOptions>,
  );
  checkKnownOptions('createSender', options.urlPolicy, URL_POLICY_KEYS, undefined, 'urlPolicy');
  const now = options.now ?? Date.now;
  const validation = options.validation ?? 'strict';
  const maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
  const onInvalid =
    options.onInvalid ??
    ((error: WebhookError) => console.warn(`gen-webhooks: ${error.message}`, error.details));
  const encoder = new TextEncoder();

  const prepare = async (type: string, data: unknown, id: string | undefined) => {
    // Own keys only: `constructor` or `toString` must not find Object.prototype's members.
    const event = Object.hasOwn(contract.events, type)
      ? contract.events[type as keyof M & string]
      : undefined;
    if (!event) {
      throw new WebhookError('unknown_event', `"${type}" is not an event of the ${contract.name} contract`, {
        details: { event: type },
      });
    }
    if (validation !== 'off') {
      const issues = await validate(event.schema, data);
      if (issues) {
        const error = new WebhookError(
          'invalid_payload',
          `Payload of "${type}" does not match the contract`,
          {
            details: { event: type, issues },
          },
        );
        if (validation === 'strict') throw error;
        onInvalid(error);
      }
    }
    const messageId = id ?? (options.generateId ?? newMessageId)();
    const createdAt = now();
    const envelope = buildEnvelope(contract.envelope, { type, data, id: messageId, timestamp: createdAt });
    const body = JSON.stringify(envelope);
    if (body === undefined) throw new WebhookError('invalid_payload', `Payload of "${type}" is not JSON`);
    const size = encoder.encode(body).byteLength;
    if (size > maxPayloadBytes) {
      throw new WebhookError(
        'payload_too_large',
        `Payload of "${type}" is ${size} bytes (limit ${maxPayloadBytes})`,
        {
          details: { event: type, size, limit: maxPayloadBytes },
        },
      );
    }
    return { messageId, createdAt, body, headers: selectorHeaders(contract, type) };
  };

  const schemes = new SchemeCache();

  return {
    contract,

    async send(type, data, sendOptions = {}) {
      checkKnownOptions('send', sendOptions, SEND_KEYS);
      const outbox = options.outbox;
      if (!outbox) {
        throw new WebhookError(
          'invalid_config',
          'send() needs an outbox (sqliteOutbox / postgresOutbox); or use sendNow()',
        );
      }
      // Before any work: a multi-tenant outbox never guesses whose endpoints a message is for.
      const tenant = resolveTenant(outbox.tenancy, sendOptions.tenant, 'send');
      const orderingKey = checkOrderingKey(sendOptions.orderingKey);
      const message = await prepare(type, data, sendOptions.id);
      // With tracing on, the headers stored with the message carry this send()'s `traceparent`.
      return traceEnqueue(
        message.headers,
        {
          'webhook.id': message.messageId,
          'webhook.type': type,
          'webhook.tenant': tenant,
          'webhook.in_transaction': sendOptions.tx !== undefined,
        },
        (headers) =>
          outbox.enqueue(
            {
              id: message.messageId,
              eventType: type,
              body: message.body,
              headers,
              createdAt: message.createdAt,
            },
            {
              tenant,
              ...(sendOptions.tx !== undefined ? { tx: sendOptions.tx } : {}),
              ...(sendOptions.endpoints ? { endpointIds: sendOptions.endpoints } : {}),
              ...(orderingKey !== undefined ? { orderingKey } : {}),
            },
          ),
        (result) => ({ 'webhook.deliveries': result.deliveryIds.length }),
      );
    },

    async sendNow(type, data, sendOptions) {
      checkKnownOptions('sendNow', sendOptions, SEND_NOW_KEYS);
      checkRetryKeys('sendNow', sendOptions.retry);
      const message = await prepare(type, data, sendOptions.id);
      const policy = compileUrlPolicy(options.urlPolicy);
      const retry = sendOptions.retry ?? SEND_NOW_SCHEDULE;
      const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
      const secrets: EndpointSecret[] = (
        typeof sendOptions.secret === 'string' ? [sendOptions.secret] : sendOptions.secret
      ).map((secret) => ({ secret, createdAt: 0 }));
      const attempts: PerformedAttempt[] = [];
      for (let n = 1; ; n++) {
        const attempt = await performAttempt({
          url: sendOptions.url,
          secrets,
          signature: contract.signature,
          messageId: message.messageId,
          body: message.body,
          headers: message.headers,
          now,
          policy,
          timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          schemes,
          ...(options.agents ? { agents: options.agents } : {}),
        });
        attempts.push(attempt);
        const { outcome } = attempt.classification;
        if (outcome === 'success') {
          sendNowEnded('succeeded', type, sendOptions.url);
          return { messageId: message.messageId, delivered: true, attempts };
        }
        if (outcome === 'fail' || outcome === 'gone') break;
        const delay = nextDelay(retry, n, {
          retryAfter: attempt.responseHeaders['retry-after'],
          now,
          ...(options.rng ? { rng: options.rng } : {}),
        });
        if (delay === null) break;
        await sleep(delay);
      }
      sendNowEnded('failed', type, sendOptions.url);
      return { messageId: message.messageId, delivered: false, attempts };
    },

    async redeliver(target, scope) {
      if (!options.outbox) throw new WebhookError('invalid_config', 'redeliver() needs an outbox');
      return options.outbox.redeliver(target, now(), scope);
    },
  };
}

/** `webhook.deliveries` for a `sendNow` that ended; the URL is parsed only when metrics are on. */
function sendNowEnded(outcome: 'succeeded' | 'failed', type: string, url: string): void {
  if (!metricsOn()) return;
  let address = '';
  try {
    address = new URL(url).hostname;
  } catch {
    // An unparsable URL failed its attempts already; the metric keeps an empty address.
  }
  recordDelivery(outcome, { 'webhook.type': type, 'server.address': address });
}

async function validate(
  schema: StandardSchemaV1<unknown, unknown>,
  data: unknown,
): Promise<{ path: string; message: string }[] | undefined> {
  const result = await schema['~standard'].validate(data);
  if (!result.issues) return undefined;
  return result.issues.map((issue) => ({
    path: (issue.path ?? [])
      .map(
        (p) =>
          `/${String(typeof p === 'object' && p !== null ? p.key : p)
            .replaceAll('~', '~0')
            .replaceAll('/', '~1')}`,
      )
      .join(''),
    message: issue.message,
  }));
}

/** Header-selected contracts (GitHub style) carry the event name in a header the receiver routes on. */
function selectorHeaders(contract: Contract<EventMapBase>, type: string): Record<string, string> {
  if (contract.selector.kind !== 'header') return {};
  const match = Object.hasOwn(contract.events, type) ? contract.events[type]?.match : undefined;
  return { [contract.selector.header.toLowerCase()]: match?.header ?? type };
}

const MAX_ORDERING_KEY_LENGTH = 200;

function checkOrderingKey(key: unknown): string | undefined {
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_ORDERING_KEY_LENGTH) {
    throw new WebhookError(
      'invalid_argument',
      `send: orderingKey must be a non-empty string of at most ${MAX_ORDERING_KEY_LENGTH} characters`,
      { details: { option: 'orderingKey' } },
    );
  }
  return key;
}
