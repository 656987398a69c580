/**
 * The SQLite attempt log: completions (the attempt recorded, the delivery moved on under its fence,
 * the endpoint's failure count kept) batched into one write transaction, and attempt history reads.
 */
import type { AttemptLog, CompleteInput, CompleteResult } from '../../outbox.js';
import { disableReason, type PendingCompletion, planCompletion } from '../completion.js';
import { type Row, toAttempt } from '../rows.js';
import { type Db, type SqliteContext, sqliteColumns } from './context.js';

export function sqliteAttempts(ctx: SqliteContext): AttemptLog {
  const { T, stmt } = ctx;
  // Hot statements' SQL built once: `stmt` looks statements up by their text.
  const SQL = {
    completeUpdate: `UPDATE ${T.deliveries}
         SET status = ?, next_attempt_at = ?, lease_owner = NULL, lease_until = NULL, last_error = ?,
             updated_at = ?, finished_at = ?
         WHERE id = ? AND status = 'delivering' AND lease_owner = ? AND attempts = ?`,
    attemptInsert: `INSERT INTO ${T.attempts} (delivery_id, message_id, endpoint_id, attempt, started_at, duration_ms,
         status_code, error_code, error, response_snippet, outcome)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    resetFailures: `UPDATE ${T.endpoints} SET consecutive_failures = 0, failing_since = NULL
       WHERE id = ? AND consecutive_failures <> 0`,
    // The streak's start: the attempt that opened it (a row from before the column: this one).
    countFailure: `UPDATE ${T.endpoints} SET consecutive_failures = consecutive_failures + 1,
         failing_since = CASE WHEN consecutive_failures = 0 OR failing_since IS NULL THEN ? ELSE failing_since END
       WHERE id = ? RETURNING consecutive_failures, failing_since`,
    disable: `UPDATE ${T.endpoints} SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ? AND enabled = 1
       RETURNING *`,
  };

  /**
   * `reset` holds the endpoints whose failure counter this batch already set to 0 with no failure
   * since: another success there would write nothing, so its statement is skipped.
   */
  const completeOne = (d: Db, input: CompleteInput, reset: Set<string>): CompleteResult => {
    const { delivery, attempt, now } = input;
    const plan = planCompletion(input);
    const applied =
      stmt(d, SQL.completeUpdate).run(
        plan.status,
        plan.nextAttemptAt,
        plan.lastError,
        now,
        plan.finishedAt,
        delivery.id,
        delivery.leaseOwner,
        delivery.attempt,
      ).changes > 0;
    // The attempt happened either way; history records it even when the lease was lost.
    stmt(d, SQL.attemptInsert).run(
      delivery.id,
      delivery.messageId,
      delivery.endpoint.id,
      delivery.attempt,
      attempt.startedAt,
      attempt.durationMs,
      attempt.statusCode ?? null,
      attempt.errorCode ?? null,
      attempt.error ?? null,
      attempt.responseSnippet ?? null,
      attempt.outcome,
    );
    if (!applied) return { applied: false };
    const endpointId = delivery.endpoint.id;
    if (!plan.failed) {
      if (reset.has(endpointId)) return { applied: true };
      stmt(d, SQL.resetFailures).run(endpointId);
      reset.add(endpointId);
      return { applied: true };
    }
    reset.delete(endpointId);
    const counted = stmt(d, SQL.countFailure).get(attempt.startedAt, endpointId) as
      | { consecutive_failures: number; failing_since: number | null }
      | undefined;
    const reason = disableReason(input, {
      failures: counted?.consecutive_failures ?? 0,
      since: counted?.failing_since ?? undefined,
    });
    if (!reason) return { applied: true };
    // Conditional on `enabled`, so exactly one completion reports (and hooks) the disabling.
    const row = stmt(d, SQL.disable).get(reason, now, endpointId) as Row | undefined;
    return row ? { applied: true, disabled: { endpoint: ctx.toEndpoint(row), reason } } : { applied: true };
  };

  const completeAll = (db: Db, items: PendingCompletion[]): CompleteResult[] => {
    const reset = new Set<string>();
    return items.map((item) => completeOne(db, item.input, reset));
  };

  // Completions of one event-loop turn are one write of the turn's transaction (with the claim, if
  // any: turn-writes.ts); a failed batch rolls back as a whole and its deliveries are retried when
  // their leases expire.
  let turn: PendingCompletion[] | undefined;
  const complete = (input: CompleteInput): Promise<CompleteResult> =>
    new Promise<CompleteResult>((resolve, reject) => {
      if (turn === undefined) {
        const items: PendingCompletion[] = [];
        turn = items;
        ctx
          .writeInTurn(
            (d) => {
              turn = undefined;
              return completeAll(d, items);
            },
            { first: true },
          )
          .then(
            (results) => {
              for (const [i, item] of items.entries()) item.resolve(results[i] as CompleteResult);
            },
            (error: unknown) => {
              // Failed before the write ran (the connection, BEGIN): later completions start anew.
              if (turn === items) turn = undefined;
              for (const item of items) item.reject(error);
            },
          );
      }
      turn.push({ input, resolve, reject });
    });

  return {
    complete,

    async listAttempts(options) {
      const tenant = ctx.tenantOf(options);
      const d = await ctx.db();
      const rows = stmt(
        d,
        `SELECT * FROM ${T.attempts}
         WHERE (? IS NULL OR delivery_id = ?) AND (? IS NULL OR endpoint_id = ?) AND ${ctx.ofTenant('endpoint_id')}
         ORDER BY id DESC LIMIT ?`,
      ).all(
        options.deliveryId ?? null,
        options.deliveryId ?? null,
        options.endpointId ?? null,
        options.endpointId ?? null,
        options.limit ?? 100,
        tenant,
      ) as Row[];
      return rows.map((r) => toAttempt(r, sqliteColumns));
    },
  };
}
