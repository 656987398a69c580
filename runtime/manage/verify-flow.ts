/**
 * What the manager does around a verification: register only verified endpoints enabled, keep a
 * failed one disabled as `unverified`, record a success as the endpoint's `verifiedAt` (the fact a
 * later enable checks, whatever the disable reason says), and apply a rate the endpoint allowed
 * (CloudEvents `WebHook-Allowed-Rate`) as its `rateLimit` when that is lower.
 */
import type { Endpoint, EndpointPatch, NewEndpoint, Outbox, TenantScope } from '../deliver/outbox.js';
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
    const at = now();
    return outbox.createEndpoint(
      { ...input, verifiedAt: at, ...(rateLimit !== undefined ? { rateLimit } : {}) },
      at,
    );
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
 * Verifies a stored endpoint again: on success `verifiedAt` is recorded, an allowed rate applied, and
 * the endpoint enabled when `enable` is set or it was disabled as `unverified` (one disabled for
 * another reason otherwise keeps that state); on failure nothing changes and `endpoint_unverified`
 * is thrown.
 */
export async function verifyStored(
  outbox: Outbox,
  verifier: Verifier,
  endpoint: Endpoint,
  now: () => number,
  scope: TenantScope,
  enable = false,
): Promise<Endpoint> {
  const outcome = await attempt(verifier, { url: endpoint.url, secrets: endpoint.secrets });
  if (!outcome.ok) throw outcome.error;
  const rateLimit = lowered(endpoint.rateLimit, outcome.result);
  const at = now();
  // Recorded only if the URL is still the one that answered (the outbox compares them).
  const patch: EndpointPatch = {
    verified: { url: endpoint.url, at },
    ...(rateLimit !== endpoint.rateLimit ? { rateLimit } : {}),
  };
  const recorded = await outbox.updateEndpoint(endpoint.id, patch, at, scope);
  if (!recorded)
    throw new WebhookError('not_found', `No endpoint "${endpoint.id}"`, { details: { id: endpoint.id } });
  if (recorded.verifiedAt === undefined) {
    throw new WebhookError('endpoint_unverified', 'Endpoint verification failed: the URL changed meanwhile', {
      details: { reason: 'url_changed' },
    });
  }
  const enables = enable || (!recorded.enabled && recorded.disabledReason === 'unverified');
  return enables ? ((await outbox.enableEndpoint(endpoint.id, now(), scope)) ?? recorded) : recorded;
}

/**
 * Verifies a new URL for an existing endpoint before a PATCH applies it; returns what the PATCH adds:
 * the rate to apply and the verification, so the new URL is stored verified in the same step.
 */
export async function verifyNewUrl(
  verifier: Verifier,
  endpoint: Endpoint,
  url: string,
  rateLimit: number | null | undefined,
  now: () => number,
): Promise<Pick<EndpointPatch, 'rateLimit' | 'verified'>> {
  const outcome = await attempt(verifier, { url, secrets: endpoint.secrets });
  if (!outcome.ok) throw outcome.error;
  const verified = { url, at: now() };
  if (outcome.result.allowedRate === undefined) return { rateLimit, verified };
  const configured = rateLimit === undefined ? endpoint.rateLimit : (rateLimit ?? undefined);
  return { rateLimit: lowered(configured, outcome.result), verified };
}
