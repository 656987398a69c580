/**
 * The PostgreSQL outbox's portal session revocations: one row per signed-out session id, kept until
 * that session's token expires (after that the token is refused on its own, so the row is pruned).
 */
import type { SessionRevocations } from '../../outbox.js';
import { date, type PgContext } from './context.js';

export function pgSessions(ctx: PgContext): SessionRevocations {
  const { T, pool, q } = ctx;
  return {
    async revokeSession(sessionId, expiresAt, now) {
      await ctx.init();
      // Pruned lazily here: revocations are rare (one per sign-out), so the table stays small
      // without a job of its own. One statement: the prune and the insert commit together.
      await q(
        pool,
        `WITH pruned AS (DELETE FROM ${T.revokedSessions} WHERE expires_at <= $3 AND session_id <> $1)
         INSERT INTO ${T.revokedSessions} (session_id, expires_at) VALUES ($1, $2)
         ON CONFLICT (session_id) DO UPDATE
           SET expires_at = GREATEST(${T.revokedSessions}.expires_at, EXCLUDED.expires_at)`,
        [sessionId, date(expiresAt), date(now)],
      );
    },

    async isSessionRevoked(sessionId, now) {
      await ctx.init();
      // An expired row may not be pruned yet: it no longer counts.
      const rows = await q(
        pool,
        `SELECT 1 FROM ${T.revokedSessions} WHERE session_id = $1 AND expires_at > $2`,
        [sessionId, date(now)],
      );
      return rows.length > 0;
    },
  };
}
