/**
 * Reading a receiver's answers to the same delivery sent N times. A receiver "behaves idempotently"
 * when every attempt is acknowledged (2xx) and it says which attempts it recognised as duplicates.
 *
 * Duplicate signals (the convention documented in docs/cli-tools.md):
 * - a response header `webhook-duplicate: true` (also `x-webhook-duplicate`, `idempotent-replayed`);
 * - a JSON body with `status` "already processed" / "duplicate" (the runtime receiver answers
 *   `{ "status": "already processed" }`), or `duplicate: true`;
 * - a text body containing "already processed".
 * A `409` whose body says the event is in progress (`in_progress`) is a concurrent duplicate the
 * receiver declined while the first attempt was still running: also a duplicate, not a failure.
 */

export interface AttemptAnswer {
  /** 1-based attempt number. */
  readonly attempt: number;
  /** HTTP status, absent when no response arrived. */
  readonly status?: number;
  readonly headers?: { readonly [name: string]: string | readonly string[] | undefined };
  readonly body?: string;
  /** Transport failure in one line, when no response arrived. */
  readonly error?: string;
  readonly durationMs?: number;
}

export type DuplicateSignal = 'header' | 'body' | 'in-progress';

export interface ClassifiedAttempt extends AttemptAnswer {
  readonly outcome: 'processed' | 'duplicate' | 'failed';
  readonly signal?: DuplicateSignal;
}

export interface IdempotencyVerdict {
  readonly ok: boolean;
  readonly attempts: readonly ClassifiedAttempt[];
  readonly processed: number;
  readonly duplicates: number;
  /** Of the duplicates, how many were concurrent ones declined with 409 in_progress. */
  readonly inProgress: number;
  readonly failed: number;
  /** Status code → count (`error` for attempts without a response). */
  readonly statuses: { readonly [status: string]: number };
  /** One sentence for people. */
  readonly summary: string;
}

const DUPLICATE_HEADERS = ['webhook-duplicate', 'x-webhook-duplicate', 'idempotent-replayed'];
const DUPLICATE_STATUS = /^(already[ _-]processed|duplicate)$/i;

function headerValue(headers: AttemptAnswer['headers'], name: string): string | undefined {
  if (!headers) return undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (value === undefined) return undefined;
    return typeof value === 'string' ? value : value.join(', ');
  }
  return undefined;
}

function parseJson(body: string | undefined): unknown {
  if (body === undefined || body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The duplicate signal in one answer, if any. */
export function duplicateSignal(answer: AttemptAnswer): DuplicateSignal | undefined {
  if (answer.status === undefined) return undefined;
  const json = parseJson(answer.body);
  const record = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : undefined;
  if (answer.status === 409) {
    const code =
      record?.code ?? (record?.error as Record<string, unknown> | undefined)?.code ?? record?.status;
    if (code === 'in_progress' || /in[ _-]progress/i.test(answer.body ?? '')) return 'in-progress';
    return undefined;
  }
  if (answer.status < 200 || answer.status >= 300) return undefined;
  for (const name of DUPLICATE_HEADERS) {
    if (headerValue(answer.headers, name)?.trim().toLowerCase() === 'true') return 'header';
  }
  if (record) {
    if (typeof record.status === 'string' && DUPLICATE_STATUS.test(record.status.trim())) return 'body';
    if (record.duplicate === true) return 'body';
    return undefined;
  }
  return /already processed/i.test(answer.body ?? '') ? 'body' : undefined;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function judgeIdempotency(answers: readonly AttemptAnswer[]): IdempotencyVerdict {
  const attempts: ClassifiedAttempt[] = answers.map((answer) => {
    const signal = duplicateSignal(answer);
    if (signal) return { ...answer, outcome: 'duplicate', signal };
    const ok = answer.status !== undefined && answer.status >= 200 && answer.status < 300;
    return { ...answer, outcome: ok ? 'processed' : 'failed' };
  });
  const statuses: Record<string, number> = {};
  for (const a of attempts) {
    const key = a.status === undefined ? 'error' : String(a.status);
    statuses[key] = (statuses[key] ?? 0) + 1;
  }
  const processed = attempts.filter((a) => a.outcome === 'processed').length;
  const duplicates = attempts.filter((a) => a.outcome === 'duplicate').length;
  const inProgress = attempts.filter((a) => a.signal === 'in-progress').length;
  const failed = attempts.filter((a) => a.outcome === 'failed').length;
  const counts = `${processed} processed + ${plural(duplicates, 'duplicate')}`;
  const inProgressNote = inProgress > 0 ? ` (${inProgress} declined as in progress with 409)` : '';
  const statusList = Object.entries(statuses)
    .map(([status, n]) => `${status}×${n}`)
    .join(', ');
  const total = attempts.length;

  let ok = false;
  let summary: string;
  if (failed > 0 && processed === 0 && duplicates === 0) {
    summary = `all ${total} attempts failed (${statusList}): the receiver rejected the delivery, so idempotency could not be checked`;
  } else if (failed > 0) {
    summary = `different answers to the same delivery (${statusList}): receiver may not be idempotent`;
  } else if (processed === 1 && duplicates === total - 1) {
    ok = true;
    summary = `idempotent: ${counts}${inProgressNote}`;
  } else if (duplicates === 0 && total > 1) {
    summary =
      `all ${total} attempts answered 2xx but none was marked as a duplicate: receiver may not be idempotent ` +
      '(it may have processed the event every time; see docs/cli-tools.md for the duplicate signal)';
  } else if (processed === 0) {
    summary = `every attempt was reported as a duplicate (${counts}): the event was processed before this run`;
    ok = true;
  } else {
    summary = `${counts}${inProgressNote}: the event was processed ${processed} times; receiver may not be idempotent`;
  }
  return { ok, attempts, processed, duplicates, inProgress, failed, statuses, summary };
}
