/**
 * The broker half of a delivery attempt (perform-attempt.ts signs and checks the target first):
 * publish through the pool and turn the confirm, or its absence, into the same classification an
 * HTTP attempt gets, so the retry schedule, the dead-letter queue and endpoint health apply unchanged.
 */
import type { AttemptClassification } from '../../classify.js';
import { isWebhookError, WebhookError, type WebhookErrorCode } from '../../errors.js';
import type { ResolvedTarget } from '../url-policy.js';
import type { DestinationPool } from './pool.js';

export { isDestinationUrl } from './redact.js';

export interface PublishInput {
  readonly id: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
  /** The worker's shutdown: aborts the wait for a confirm. */
  readonly signal?: AbortSignal;
}

export type PublishClassification = AttemptClassification & { readonly failure?: unknown };

/** Never throws: a failure is in the classification (`failure`, for the attempt's error text). */
export async function publishAttempt(
  pool: DestinationPool | undefined,
  target: ResolvedTarget,
  input: PublishInput,
): Promise<PublishClassification> {
  try {
    if (!pool) {
      throw new WebhookError(
        'invalid_config',
        `No destination for ${target.url.protocol} URLs: pass createWorker({ destinations: [...] })`,
        { details: { option: 'destinations', scheme: target.url.protocol } },
      );
    }
    await pool.publish(
      target,
      { id: input.id, headers: input.headers, body: input.body },
      input.timeoutMs,
      input.signal,
    );
    return { outcome: 'success', reason: 'broker_confirmed' };
  } catch (failure) {
    if (isWebhookError(failure, 'invalid_config') || isWebhookError(failure, 'invalid_url')) {
      return { outcome: 'fail', reason: failure.code, code: failure.code, failure };
    }
    const code: WebhookErrorCode = isWebhookError(failure, 'timeout') ? 'timeout' : 'connection_failed';
    const verdict = pool?.classify(target.url, failure) ?? 'retry';
    return { outcome: verdict, reason: code === 'timeout' ? 'timeout' : 'publish_failed', code, failure };
  }
}
