/**
 * Endpoint verification: proof that a URL wants our deliveries before it gets any (so a registration
 * cannot point the sender at someone else's server). Two ways, both over the same SSRF-guarded,
 * address-pinned HTTP attempt as deliveries, with a deadline:
 *
 * - `event`: a signed `webhook.verification` POST whose body carries a random challenge; the endpoint
 *   answers 2xx with the challenge echoed (`{"challenge":"…"}` as JSON, or the bare challenge).
 * - `cloudevents`: the CloudEvents HTTP webhook abuse-protection handshake, `OPTIONS` with
 *   `WebHook-Request-Origin`; the endpoint answers 2xx with `WebHook-Allowed-Origin` equal to the
 *   origin or `*` (and, when it limits us, `WebHook-Allowed-Rate` in requests per minute).
 */
import { randomBytes } from 'node:crypto';
import type { SignatureConfig } from '../contract.js';
import { sendAttempt } from '../deliver/http-attempt.js';
import type { EndpointSecret } from '../deliver/outbox.js';
import { performAttempt, USER_AGENT } from '../deliver/perform-attempt.js';
import { randomId } from '../deliver/random-id.js';
import {
  type CompiledUrlPolicy,
  notPublic,
  type ResolvedTarget,
  resolveTarget,
} from '../deliver/url-policy.js';
import { isWebhookError, WebhookError } from '../errors.js';

/** Event type of the `event` verification request. */
export const VERIFICATION_EVENT = 'webhook.verification';
/** How long the endpoint has to answer a verification request. */
export const DEFAULT_VERIFICATION_TIMEOUT_MS = 10_000;

export type VerificationOption =
  | 'none'
  | 'event'
  | { readonly mode: 'event'; readonly timeoutMs?: number }
  | {
      readonly mode: 'cloudevents';
      /** Sent as `WebHook-Request-Origin`: the DNS name that identifies this sender, e.g. `webhooks.example.com`. */
      readonly origin: string;
      /** Sent as `WebHook-Request-Rate` (requests per minute) when set. */
      readonly requestRate?: number;
      readonly timeoutMs?: number;
    };

export interface VerifyTarget {
  readonly url: string;
  /** The endpoint's secrets: the `event` request is signed with the active ones. */
  readonly secrets: readonly EndpointSecret[];
}

export interface VerificationResult {
  /** Deliveries per second the endpoint allowed (`WebHook-Allowed-Rate` / 60), when it named a limit. */
  readonly allowedRate?: number;
}

export interface Verifier {
  readonly mode: 'none' | 'event' | 'cloudevents';
  /** Resolves when the endpoint acknowledged; throws `endpoint_unverified` (or the URL policy's error). */
  verify(target: VerifyTarget): Promise<VerificationResult>;
}

export function createVerifier(
  option: VerificationOption | undefined,
  context: { signature: SignatureConfig; policy: CompiledUrlPolicy; now: () => number },
): Verifier {
  if (option === undefined || option === 'none') {
    return {
      mode: 'none',
      verify: async () => {
        throw new WebhookError(
          'invalid_config',
          'Endpoint verification is not configured (verification: none)',
        );
      },
    };
  }
  const config = typeof option === 'string' ? { mode: option } : option;
  const timeoutMs = config.timeoutMs ?? DEFAULT_VERIFICATION_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new WebhookError('invalid_config', 'verification.timeoutMs must be a positive integer');
  }
  if (config.mode === 'event') {
    return { mode: 'event', verify: (target) => verifyByEvent(target, { ...context, timeoutMs }) };
  }
  if (config.mode !== 'cloudevents') {
    throw new WebhookError(
      'invalid_config',
      `Unknown verification mode "${String((config as { mode: unknown }).mode)}"`,
    );
  }
  if (typeof config.origin !== 'string' || !/^[\x21-\x7e]{1,253}$/.test(config.origin)) {
    throw new WebhookError(
      'invalid_config',
      'verification.origin must name this sender, e.g. "webhooks.example.com"',
    );
  }
  if (config.requestRate !== undefined && !(Number.isInteger(config.requestRate) && config.requestRate > 0)) {
    throw new WebhookError(
      'invalid_config',
      'verification.requestRate must be a positive integer (per minute)',
    );
  }
  const handshake = { ...context, timeoutMs, origin: config.origin, requestRate: config.requestRate };
  return { mode: 'cloudevents', verify: (target) => verifyByHandshake(target, handshake) };
}

/** As at registration: a name that does not resolve is answered like one that resolves inward. */
async function resolvePublic(url: string, policy: CompiledUrlPolicy): Promise<ResolvedTarget> {
  try {
    return await resolveTarget(url, policy);
  } catch (error) {
    if (isWebhookError(error, 'dns_failure')) throw notPublic(new URL(url).hostname, { cause: error });
    throw error;
  }
}

function unverified(reason: string, details: Record<string, unknown>): WebhookError {
  return new WebhookError('endpoint_unverified', `Endpoint verification failed: ${reason}`, {
    details: { reason, ...details },
  });
}

async function verifyByEvent(
  target: VerifyTarget,
  context: { signature: SignatureConfig; policy: CompiledUrlPolicy; now: () => number; timeoutMs: number },
): Promise<VerificationResult> {
  // Refused URLs fail before any request, with the URL policy's own error.
  await resolvePublic(target.url, context.policy);
  const challenge = randomBytes(24).toString('base64url');
  const body = JSON.stringify({
    type: VERIFICATION_EVENT,
    timestamp: new Date(context.now()).toISOString(),
    data: { challenge },
  });
  const attempt = await performAttempt({
    url: target.url,
    secrets: target.secrets,
    signature: context.signature,
    messageId: randomId('msg'),
    body,
    headers: {},
    now: context.now,
    policy: context.policy,
    timeoutMs: context.timeoutMs,
  });
  const status = attempt.status ?? null;
  if (status === null || status < 200 || status > 299) {
    throw unverified(status === null ? (attempt.error ?? 'no response') : `answered ${status}`, { status });
  }
  if (!echoes(attempt.responseSnippet, challenge)) {
    throw unverified(`answered ${status} without echoing the challenge`, { status });
  }
  return {};
}

/** `{"challenge":"…"}` (JSON) or the challenge itself as the whole body. */
function echoes(body: string, challenge: string): boolean {
  const text = body.trim();
  if (text === challenge) return true;
  try {
    const value: unknown = JSON.parse(text);
    return (
      typeof value === 'object' &&
      value !== null &&
      Object.hasOwn(value, 'challenge') &&
      (value as { challenge: unknown }).challenge === challenge
    );
  } catch {
    return false;
  }
}

async function verifyByHandshake(
  target: VerifyTarget,
  context: { policy: CompiledUrlPolicy; timeoutMs: number; origin: string; requestRate: number | undefined },
): Promise<VerificationResult> {
  const resolved = await resolvePublic(target.url, context.policy);
  const response = await sendAttempt({
    target: resolved,
    method: 'OPTIONS',
    headers: {
      'user-agent': USER_AGENT,
      'webhook-request-origin': context.origin,
      ...(context.requestRate !== undefined ? { 'webhook-request-rate': String(context.requestRate) } : {}),
    },
    body: '',
    timeoutMs: context.timeoutMs,
  });
  const status = response.status ?? null;
  if (status === null || status < 200 || status > 299) {
    const reason =
      status === null
        ? `${response.error?.code ?? 'no response'}: ${response.error?.message ?? ''}`
        : `answered ${status}`;
    throw unverified(reason, { status });
  }
  const allowed = response.headers['webhook-allowed-origin']?.trim();
  if (allowed === undefined || (allowed !== '*' && allowed.toLowerCase() !== context.origin.toLowerCase())) {
    throw unverified(
      allowed === undefined
        ? `answered ${status} without WebHook-Allowed-Origin`
        : `WebHook-Allowed-Origin "${allowed}" is not "${context.origin}"`,
      { status, header: 'webhook-allowed-origin', expected: context.origin },
    );
  }
  const rate = response.headers['webhook-allowed-rate']?.trim();
  if (rate === undefined || rate === '*') return {};
  if (!/^[1-9][0-9]{0,8}$/.test(rate)) {
    throw unverified(`WebHook-Allowed-Rate "${rate}" is not a positive integer or *`, {
      status,
      header: 'webhook-allowed-rate',
    });
  }
  return { allowedRate: Number(rate) / 60 };
}
