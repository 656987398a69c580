/**
 * The telemetry of one delivery attempt: its span (started before signing, ended with the verdict)
 * and its metric. Typed by the few fields it reads, so `deliver/perform-attempt.ts` can call it
 * without an import cycle. Free when neither tracing nor metrics are set.
 */
import type { AttemptClassification } from '../classify.js';
import { endAttemptSpan, metricsOn, recordAttempt, startAttemptSpan } from './send-hooks.js';
import type { AttemptSpan, TraceAttributes } from './types.js';

export interface AttemptFacts {
  readonly url: string;
  readonly messageId: string;
  /** The message's stored headers: their `traceparent` is the parent of the attempt's span. */
  readonly headers: Readonly<Record<string, string>>;
  readonly eventType?: string;
  readonly attemptNumber?: number;
}

interface AttemptVerdict {
  readonly classification: AttemptClassification;
  readonly status?: number;
  readonly durationMs: number;
}

const CLASSIFIED: Readonly<Record<AttemptClassification['outcome'], string>> = {
  success: 'succeeded',
  retry: 'retry',
  fail: 'failed',
  gone: 'failed',
};

/** Starts the span; `traceHeaders` gets the attempt's own `traceparent` to send. */
export function startAttemptTelemetry(
  traceHeaders: Record<string, string>,
  facts: AttemptFacts,
): AttemptSpan | undefined {
  return startAttemptSpan(traceHeaders, () => attemptAttributes(facts), facts.headers);
}

/**
 * Ends the span and records the metric. `outcome` names what the attempt means for its delivery
 * (`succeeded`, `retry`, `dead`; default from the classification: `succeeded`, `retry`, `failed`).
 */
export function finishAttemptTelemetry<V extends AttemptVerdict>(
  facts: AttemptFacts & { readonly outcome?: (verdict: V) => string },
  verdict: V,
  span: AttemptSpan | undefined,
  failure: unknown,
): void {
  if (span === undefined && !metricsOn()) return;
  const { classification, status } = verdict;
  let outcome = CLASSIFIED[classification.outcome];
  try {
    if (facts.outcome) outcome = facts.outcome(verdict);
  } catch {
    // The label only.
  }
  const end: Record<string, string | number> = { 'webhook.outcome': outcome };
  if (classification.outcome !== 'success') end['error.type'] = classification.code ?? classification.reason;
  endAttemptSpan(span, status, status === undefined ? failure : undefined, end);
  const host = hostOf(facts.url);
  recordAttempt(verdict.durationMs, {
    ...end,
    ...(facts.eventType !== undefined ? { 'webhook.type': facts.eventType } : {}),
    ...(host !== undefined ? { 'server.address': host.address } : {}),
    ...(status !== undefined ? { 'http.response.status_code': status } : {}),
  });
}

/** Host, port and scheme only: a webhook URL's path or query may hold a token. */
function attemptAttributes(facts: AttemptFacts): TraceAttributes {
  const host = hostOf(facts.url);
  return {
    'webhook.id': facts.messageId,
    ...(facts.eventType !== undefined ? { 'webhook.type': facts.eventType } : {}),
    ...(facts.attemptNumber !== undefined ? { 'webhook.attempt': facts.attemptNumber } : {}),
    'http.request.method': 'POST',
    ...(host !== undefined
      ? { 'server.address': host.address, 'server.port': host.port, 'url.scheme': host.scheme }
      : {}),
  };
}

function hostOf(url: string): { address: string; port: number; scheme: string } | undefined {
  try {
    const parsed = new URL(url);
    const scheme = parsed.protocol.slice(0, -1);
    const port = parsed.port === '' ? (scheme === 'https' ? 443 : 80) : Number(parsed.port);
    return { address: parsed.hostname.replace(/^\[|\]$/g, ''), port, scheme };
  } catch {
    return undefined;
  }
}
