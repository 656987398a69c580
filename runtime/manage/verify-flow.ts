/**
 * What the manager does around a verification: register only verified endpoints enabled, keep a
 * failed one disabled as `unverified`, and apply a rate the endpoint allowed (CloudEvents
 * `WebHook-Allowed-Rate`) as its `rateLimit` when that is lower.
 */
import type { Endpoint, NewEndpoint, Outbox, TenantScope } from '../deliver/outbox.js';
import { isWebhookError, WebhookError } from '../errors.js';
import type { VerificationResult, Verifier, VerifyTarget } from './verify-endpoint.js';
import { toEndpointView } from './view.js';

type Attempted = { ok: true; result: VerificationResult } | { ok: false; error: WebhookError };

async function attempt(verifier: Verifier, target: VerifyTarget): Promise<Attempted> {
  try {
    return { ok: true, result: await verifier.verify(target) };
  } catch (error) {
    if (isWebhookError(error, 'endpoint_unverified')) return { ok: false, error };
    throw error;
  }
}

/** The lower of the configured limit and the one the endpoint allowed. */
export function lowered(rateLimit: number | undefined, result: VerificationResult): number | undefined {
  if (result.allowedRate === undefined) return rateLimit;
  return rateLimit === undefined ? result.allowedRate : Math.min(rateLimit, result.allowedRate);
}

/**
 * Verifies first, then creates: a verified endpoint is created enabled (never reachable unverified);
 * a failed one is created and disabled as `unverified` at once, and the `endpoint_unverified` error
 * carries it and its secret (shown once, like a 201) so the caller can fix the receiver and `verify`.
 */
export async function createVerified(
  outbox: Outbox,
  verifier: Verifier,
  input: NewEndpoint & { readonly id: string; readonly tenant: string },
  now: () => number,
): Promise<Endpoint> {
  const outcome = await attempt(verifier, {
    url: input.url,
    secrets: [{ secret: input.secret, createdAt: now() }],
  });
  if (outcome.ok) {
    const rateLimit = lowered(input.rateLimit, outcome.result);
    return outbox.createEndpoint({ ...input, ...(rateLimit !== undefined ? { rateLimit } : {}) }, now());
  }
  const created = await outbox.createEndpoint(input, now());
  const disabled = await outbox.disableEndpoint(created.id, 'unverified', now(), { tenant: input.tenant });
  throw withEndpoint(outcome.error, disabled ?? created, input.secret);
}

function withEndpoint(error: WebhookError, endpoint: Endpoint, secret: string): WebhookError {
  return new WebhookError('endpoint_unverified', error.message, {
    details: { ...error.details, endpoint: toEndpointView(endpoint), secret },
  });
}

/**
 * Verifies a stored endpoint again: on success one disabled as `unverified` is enabled (an endpoint
 * disabled for another reason keeps that state) and an allowed rate is applied; on failure nothing
 * changes and `endpoint_unverified` is thrown.
 */
export async function verifyStored(
  outbox: Outbox,
  verifier: Verifier,
  endpoint: Endpoint,
  now: () => number,
  scope: TenantScope,
): Promise<Endpoint> {
  const outcome = await attempt(verifier, { url: endpoint.url, secrets: endpoint.secrets });
  if (!outcome.ok) throw outcome.error;
  let current = endpoint;
  const rateLimit = lowered(endpoint.rateLimit, outcome.result);
  if (rateLimit !== endpoint.rateLimit) {
    current = (await outbox.updateEndpoint(endpoint.id, { rateLimit }, now(), scope)) ?? current;
  }
  if (!current.enabled && current.disabledReason === 'unverified') {
    current = (await outbox.enableEndpoint(endpoint.id, now(), scope)) ?? current;
  }
  return current;
}

/** Verifies a new URL for an existing endpoint before a PATCH applies it; returns the rate to apply. */
export async function verifyNewUrl(
  verifier: Verifier,
  endpoint: Endpoint,
  url: string,
  rateLimit: number | null | undefined,
): Promise<number | null | undefined> {
  const outcome = await attempt(verifier, { url, secrets: endpoint.secrets });
  if (!outcome.ok) throw outcome.error;
  if (outcome.result.allowedRate === undefined) return rateLimit;
  const configured = rateLimit === undefined ? endpoint.rateLimit : (rateLimit ?? undefined);
  return lowered(configured, outcome.result);
}
