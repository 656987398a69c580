/**
 * Retry classification of one delivery attempt: what the sender does next.
 * - 2xx → `success`; 410 → `gone` (disable the endpoint); 408, 425, 429, 5xx → `retry`;
 *   3xx → `fail` (redirects are not followed: they would move a signed payload elsewhere); other → `fail`.
 * - Transport errors: refused/reset/unreachable connections, DNS failures (including `ENOTFOUND`: DNS
 *   outages look like that too), timeouts, TLS and unknown network errors → `retry`; our own
 *   SSRF/URL guards (`blocked_address`, `insecure_url`, `invalid_url`) → `fail`.
 *
 * Exports: `classifyAttempt`, `DEFAULT_TIMEOUT_MS`, types `AttemptOutcome`, `AttemptClassification`.
 */
import { WebhookError, type WebhookErrorCode } from './errors.js';

export const DEFAULT_TIMEOUT_MS = 5000;

export type AttemptOutcome = 'success' | 'retry' | 'fail' | 'gone';

export interface AttemptClassification {
  readonly outcome: AttemptOutcome;
  /** Short machine-readable reason, e.g. `http_503`, `connection_refused`, `timeout`. */
  readonly reason: string;
  /** The `WebhookError` code describing a failed attempt (absent on success). */
  readonly code?: WebhookErrorCode;
}

export interface AttemptResult {
  readonly status?: number;
  readonly error?: unknown;
}

const RETRY_STATUSES = new Set([408, 425, 429]);

const NETWORK_CODES: Readonly<Record<string, { reason: string; code: WebhookErrorCode }>> = {
  ECONNREFUSED: { reason: 'connection_refused', code: 'connection_failed' },
  ECONNRESET: { reason: 'connection_reset', code: 'connection_failed' },
  ECONNABORTED: { reason: 'connection_reset', code: 'connection_failed' },
  EPIPE: { reason: 'connection_reset', code: 'connection_failed' },
  EHOSTUNREACH: { reason: 'host_unreachable', code: 'connection_failed' },
  ENETUNREACH: { reason: 'host_unreachable', code: 'connection_failed' },
  EHOSTDOWN: { reason: 'host_unreachable', code: 'connection_failed' },
  ENETDOWN: { reason: 'host_unreachable', code: 'connection_failed' },
  ENOTFOUND: { reason: 'dns_failure', code: 'dns_failure' },
  EAI_AGAIN: { reason: 'dns_failure', code: 'dns_failure' },
  EAI_FAIL: { reason: 'dns_failure', code: 'dns_failure' },
  EAI_NODATA: { reason: 'dns_failure', code: 'dns_failure' },
  EAI_NONAME: { reason: 'dns_failure', code: 'dns_failure' },
  ETIMEDOUT: { reason: 'timeout', code: 'timeout' },
  ESOCKETTIMEDOUT: { reason: 'timeout', code: 'timeout' },
  UND_ERR_CONNECT_TIMEOUT: { reason: 'timeout', code: 'timeout' },
  UND_ERR_HEADERS_TIMEOUT: { reason: 'timeout', code: 'timeout' },
  UND_ERR_BODY_TIMEOUT: { reason: 'timeout', code: 'timeout' },
  UND_ERR_SOCKET: { reason: 'connection_reset', code: 'connection_failed' },
  UND_ERR_CLOSED: { reason: 'connection_reset', code: 'connection_failed' },
  UND_ERR_ABORTED: { reason: 'aborted', code: 'connection_failed' },
  UND_ERR_RESPONSE_STATUS_CODE: { reason: 'http_error', code: 'http_error' },
};

/** Our own pre-flight guards: retrying cannot help. */
const FINAL_WEBHOOK_CODES = new Set<WebhookErrorCode>([
  'blocked_address',
  'insecure_url',
  'invalid_url',
  'redirect',
  'endpoint_disabled',
  'invalid_argument',
  'invalid_config',
  'invalid_secret',
  'invalid_key',
]);

export function classifyAttempt(result: AttemptResult): AttemptClassification {
  const { status, error } = result;
  if (typeof status === 'number') return classifyStatus(status);
  if (error !== undefined) return classifyError(error);
  return { outcome: 'retry', reason: 'no_response', code: 'connection_failed' };
}

function classifyStatus(status: number): AttemptClassification {
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    return { outcome: 'fail', reason: 'invalid_status', code: 'http_error' };
  }
  if (status >= 200 && status < 300) return { outcome: 'success', reason: `http_${status}` };
  if (status === 410) return { outcome: 'gone', reason: 'http_410', code: 'endpoint_disabled' };
  if (status >= 300 && status < 400)
    return { outcome: 'fail', reason: `redirect_${status}`, code: 'redirect' };
  if (RETRY_STATUSES.has(status) || status >= 500) {
    return { outcome: 'retry', reason: `http_${status}`, code: 'http_error' };
  }
  return { outcome: 'fail', reason: `http_${status}`, code: 'http_error' };
}

/** Walks `cause` chains and AggregateErrors (undici wraps the socket error: `fetch failed` → cause). */
function* errorChain(error: unknown): Generator<unknown> {
  const queue: unknown[] = [error];
  for (let seen = 0; queue.length > 0 && seen < 16; seen++) {
    const current = queue.shift();
    yield current;
    if (current !== null && typeof current === 'object') {
      const { cause, errors } = current as { cause?: unknown; errors?: unknown };
      if (cause !== undefined) queue.push(cause);
      if (Array.isArray(errors)) queue.push(...errors.slice(0, 8));
    }
  }
}

function classifyError(error: unknown): AttemptClassification {
  for (const item of errorChain(error)) {
    if (item instanceof WebhookError) {
      if (FINAL_WEBHOOK_CODES.has(item.code)) {
        return item.code === 'endpoint_disabled'
          ? { outcome: 'gone', reason: item.code, code: item.code }
          : { outcome: 'fail', reason: item.code, code: item.code };
      }
      if (item.code === 'timeout') return { outcome: 'retry', reason: 'timeout', code: 'timeout' };
      if (item.code === 'dns_failure')
        return { outcome: 'retry', reason: 'dns_failure', code: 'dns_failure' };
    }
    if (item === null || typeof item !== 'object') continue;
    const { name, code } = item as { name?: unknown; code?: unknown };
    if (name === 'TimeoutError') return { outcome: 'retry', reason: 'timeout', code: 'timeout' };
    if (name === 'AbortError') return { outcome: 'retry', reason: 'aborted', code: 'timeout' };
    if (typeof code === 'string') {
      const known = NETWORK_CODES[code];
      if (known !== undefined) return { outcome: 'retry', ...known };
      if (code.startsWith('UND_ERR_'))
        return { outcome: 'retry', reason: 'network_error', code: 'connection_failed' };
      if (/CERT|SSL|TLS/.test(code))
        return { outcome: 'retry', reason: 'tls_error', code: 'connection_failed' };
    }
  }
  return { outcome: 'retry', reason: 'network_error', code: 'connection_failed' };
}
