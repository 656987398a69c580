/** Building receiver answers: JSON bodies, statuses and the error shape `{ error: { code, message, issues } }`. */
import { WebhookError } from '../errors.js';
import type { ReceiveOutcome, ReceiveResult } from './types.js';

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

type ResultExtra = {
  id?: string | undefined;
  type?: string | undefined;
  headers?: Record<string, string>;
};

// Status bodies are a handful of constants: serialise each once.
const statusBodies = new Map<string, string>();

export function statusResult(
  status: number,
  outcome: ReceiveOutcome,
  message: string,
  extra: ResultExtra = {},
): ReceiveResult {
  let body = statusBodies.get(message);
  if (body === undefined) {
    body = JSON.stringify({ status: message });
    if (statusBodies.size < 64) statusBodies.set(message, body);
  }
  const result: { -readonly [K in keyof ReceiveResult]: ReceiveResult[K] } = {
    status,
    outcome,
    body,
    headers:
      extra.headers === undefined
        ? { 'content-type': 'application/json' }
        : { ...JSON_HEADERS, ...extra.headers },
  };
  if (extra.id !== undefined) result.id = extra.id;
  if (extra.type !== undefined) result.type = extra.type;
  return result;
}

export function errorResult(
  error: WebhookError,
  outcome: ReceiveOutcome,
  extra: ResultExtra = {},
): ReceiveResult {
  // 5xx answers never echo internal messages (they may carry database or handler details).
  const message = error.status >= 500 ? publicMessage(error) : error.message;
  const issues = error.details.issues;
  const payload: Record<string, unknown> = { code: error.code, message };
  if (issues !== undefined) payload['issues'] = issues;
  if (error.status < 500 && error.details.header !== undefined) payload['header'] = error.details.header;
  if (error.status < 500 && error.details.pointer !== undefined) payload['pointer'] = error.details.pointer;
  return {
    ...statusResult(error.status, outcome, '', extra),
    error,
    body: JSON.stringify({ error: payload }),
  };
}

function publicMessage(error: WebhookError): string {
  switch (error.code) {
    case 'handler_failed':
      return 'The webhook handler failed; a retry of this delivery will process it again.';
    case 'store_error':
      return 'The idempotency store is unavailable; retry later.';
    case 'parsed_body':
    case 'body_consumed':
      return 'The server read the request body before the webhook receiver could verify it.';
    default:
      return 'Internal error while receiving the webhook.';
  }
}

/** Anything thrown on the receive path as a WebhookError (unknown errors are internal: 500). */
export function toWebhookError(error: unknown): WebhookError {
  if (error instanceof WebhookError) return error;
  return new WebhookError('handler_failed', 'Unexpected error while receiving the webhook', {
    status: 500,
    cause: error,
  });
}
