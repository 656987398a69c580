/**
 * One signed delivery attempt, start to verdict: resolve and check the URL, sign with every active
 * secret, POST, classify. Shared by the outbox worker and the store-less `sendNow`.
 */
import { type AttemptClassification, classifyAttempt } from '../classify.js';
import type { SignatureConfig } from '../contract.js';
import { isWebhookError, WebhookError } from '../errors.js';
import { finishAttemptTelemetry, startAttemptTelemetry } from '../otel/attempt-telemetry.js';
import { createSignatureScheme } from '../signing/resolve.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { parseAddress } from './address.js';
import { isDestinationUrl, publishAttempt } from './destinations/attempt.js';
import type { DestinationPool } from './destinations/pool.js';
import {
  type AttemptResponse,
  type HttpAgents,
  RESPONSE_SNIPPET_BYTES,
  sendAttempt,
} from './http-attempt.js';
import type { EndpointSecret } from './outbox.js';
import { type CompiledUrlPolicy, type ResolvedTarget, resolveTarget } from './url-policy.js';

export const USER_AGENT = 'gen-webhooks';

export interface PerformAttemptInput {
  readonly url: string;
  readonly secrets: readonly EndpointSecret[];
  readonly signature: SignatureConfig;
  readonly messageId: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly now: () => number;
  readonly policy: CompiledUrlPolicy;
  readonly timeoutMs: number;
  readonly agents?: HttpAgents;
  readonly maxResponseBytes?: number;
  readonly schemes?: SchemeCache;
  readonly targets?: TargetCache;
  /** Broker destinations (non-HTTP endpoint URLs); absent: such a URL fails with `invalid_config`. */
  readonly destinations?: DestinationPool;
  /** For telemetry: the event type and the 1-based attempt number of the delivery. */
  readonly eventType?: string;
  readonly attemptNumber?: number;
  /**
   * For telemetry: what this attempt means for its delivery (`succeeded`, `retry`, `dead`). Default
   * from the classification (`succeeded`, `retry`, `failed`).
   */
  readonly outcome?: (attempt: PerformedAttempt) => string;
  /** Aborts the HTTP exchange (the worker's stop deadline); see `AttemptInput.signal`. */
  readonly signal?: AbortSignal;
}

export interface PerformedAttempt {
  readonly startedAt: number;
  readonly durationMs: number;
  readonly status?: number;
  readonly responseHeaders: Readonly<Record<string, string>>;
  readonly responseSnippet: string;
  readonly classification: AttemptClassification;
  /** Human-readable failure (`http_503`, `timeout: …`); absent on success. */
  readonly error?: string;
}

/** Secrets that still sign at `now` (a rotated-out secret signs until its overlap ends). */
export function activeSecrets(secrets: readonly EndpointSecret[], now: number): string[] {
  return secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > now).map((s) => s.secret);
}

/** Schemes are cached per secret set: decoding keys costs more than signing. */
export class SchemeCache {
  readonly #cache = new Map<string, SignatureScheme>();
  // Per endpoint secret list (one object per claim batch): the scheme, valid until a secret expires.
  readonly #bySecrets = new WeakMap<
    readonly EndpointSecret[],
    { signature: SignatureConfig; scheme: SignatureScheme; validFrom: number; validUntil: number }
  >();

  /** The scheme for the secrets active at `now`; throws `invalid_secret` when none is. */
  forEndpoint(signature: SignatureConfig, secrets: readonly EndpointSecret[], now: number): SignatureScheme {
    const hit = this.#bySecrets.get(secrets);
    if (hit && hit.signature === signature && now >= hit.validFrom && now < hit.validUntil) return hit.scheme;
    const active = activeSecrets(secrets, now);
    if (active.length === 0 && signature.kind !== 'none') {
      throw new WebhookError('invalid_secret', 'The endpoint has no active signing secret');
    }
    const scheme = this.get(signature, active);
    let validUntil = Number.POSITIVE_INFINITY;
    for (const s of secrets) {
      if (s.expiresAt !== undefined && s.expiresAt > now) validUntil = Math.min(validUntil, s.expiresAt);
    }
    this.#bySecrets.set(secrets, { signature, scheme, validFrom: now, validUntil });
    return scheme;
  }

  get(signature: SignatureConfig, secrets: readonly string[]): SignatureScheme {
    const key = `${JSON.stringify(signature)}\u0000${secrets.join('\u0000')}`;
    let scheme = this.#cache.get(key);
    if (!scheme) {
      scheme = createSignatureScheme(signature, {
        secret: secrets.length === 1 ? (secrets[0] as string) : secrets,
      });
      if (this.#cache.size >= 1024) this.#cache.clear();
      this.#cache.set(key, scheme);
    }
    return scheme;
  }
}

/**
 * Checked targets per URL, so a busy endpoint is not re-resolved for every attempt. IP-literal URLs
 * never expire; host names are re-resolved after `ttlMs` (the connection is still pinned to the
 * checked address, so a cached answer cannot be rebound).
 */
export class TargetCache {
  readonly #entries = new Map<string, { target: ResolvedTarget; expiresAt: number }>();
  readonly ttlMs: number;
  constructor(ttlMs = 30_000) {
    this.ttlMs = ttlMs;
  }
  async get(url: string, policy: CompiledUrlPolicy, now: number): Promise<ResolvedTarget> {
    const hit = this.#entries.get(url);
    if (hit && hit.expiresAt > now) return hit.target;
    const target = await resolveTarget(url, policy);
    const literal = parseAddress(target.host) !== undefined;
    if (this.#entries.size >= 4096) this.#entries.clear();
    if (literal || this.ttlMs > 0) {
      this.#entries.set(url, { target, expiresAt: literal ? Number.POSITIVE_INFINITY : now + this.ttlMs });
    }
    return target;
  }
}

export { setSendTracing } from '../otel/send-hooks.js';

export async function performAttempt(input: PerformAttemptInput): Promise<PerformedAttempt> {
  const startedAt = input.now();
  const clock = performance.now();
  let response: AttemptResponse | undefined;
  let failure: unknown;
  let published: AttemptClassification | undefined;
  const traceHeaders: Record<string, string> = {};
  // The message's stored headers carry the `traceparent` of its send(): the attempt continues it.
  const span = startAttemptTelemetry(traceHeaders, input);
  try {
    const scheme = (input.schemes ?? new SchemeCache()).forEndpoint(
      input.signature,
      input.secrets,
      startedAt,
    );
    const signed = await scheme.sign({
      id: input.messageId,
      timestamp: Math.floor(startedAt / 1000),
      body: input.body,
      url: input.url,
    });
    const target = input.targets
      ? await input.targets.get(input.url, input.policy, startedAt)
      : await resolveTarget(input.url, input.policy);
    if (isDestinationUrl(target.url)) {
      const outcome = await publishAttempt(input.destinations, target, {
        id: input.messageId,
        headers: { 'content-type': 'application/json', ...input.headers, ...traceHeaders, ...signed },
        body: input.body,
        timeoutMs: input.timeoutMs,
        ...(input.signal !== undefined ? { signal: input.signal } : {}),
      });
      ({ failure, ...published } = outcome);
    } else {
      response = await sendAttempt({
        target,
        headers:
          span === undefined
            ? { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...input.headers, ...signed }
            : {
                'content-type': 'application/json',
                'user-agent': USER_AGENT,
                ...input.headers,
                ...traceHeaders,
                ...signed,
              },
        body: input.body,
        timeoutMs: input.timeoutMs,
        ...(input.agents ? { agents: input.agents } : {}),
        ...(input.maxResponseBytes !== undefined ? { maxResponseBytes: input.maxResponseBytes } : {}),
        ...(input.signal !== undefined ? { signal: input.signal } : {}),
      });
      failure = response.error;
    }
  } catch (error) {
    failure = error;
  }
  const status = response?.status;
  const classification = published ?? classifyAttempt(status !== undefined ? { status } : { error: failure });
  const durationMs = response?.durationMs ?? Math.round((performance.now() - clock) * 100) / 100;
  const performed: PerformedAttempt = {
    startedAt,
    durationMs,
    ...(status !== undefined ? { status } : {}),
    responseHeaders: response?.headers ?? {},
    responseSnippet: (response?.body ?? '').slice(0, RESPONSE_SNIPPET_BYTES),
    classification,
    ...(classification.outcome === 'success' ? {} : { error: describeFailure(classification, failure) }),
  };
  finishAttemptTelemetry(input, performed, span, failure);
  return performed;
}

function describeFailure(classification: AttemptClassification, failure: unknown): string {
  if (failure === undefined) return classification.reason;
  const message = isWebhookError(failure) || failure instanceof Error ? failure.message : String(failure);
  return `${classification.reason}: ${message}`;
}
