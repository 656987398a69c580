/**
 * The SQLite outbox's portal session revocations: one row per signed-out session id, kept until that
 * session's token expires (after that the token is refused on its own, so the row is pruned).
 */
import type { SessionRevocations } from '../../outbox.js';
import type { SqliteContext } from './context.js';

export function sqliteSessions(ctx: SqliteContext): SessionRevocations {
  const { T, stmt } = ctx;
  return {
    async revokeSession(sessionId, expiresAt, now) {
      const d = await ctx.db();
      // Pruned lazily here: revocations are rare (one per sign-out), so the table stays small
      // without a job of its own.
      d.transaction(() => {
        stmt(d, `DELETE FROM ${T.revokedSessions} WHERE expires_at <= ?`).run(now);
        stmt(
          d,
          `INSERT INTO ${T.revokedSessions} (session_id, expires_at) VALUES (?, ?)
           ON CONFLICT (session_id) DO UPDATE SET expires_at = max(expires_at, excluded.expires_at)`,
        ).run(sessionId, expiresAt);
      }).immediate();
    },

    async isSessionRevoked(sessionId, now) {
      const d = await ctx.db();
      // An expired row may not be pruned yet: it no longer counts.
      const row = stmt(d, `SELECT 1 FROM ${T.revokedSessions} WHERE session_id = ? AND expires_at > ?`).get(
        sessionId,
        now,
      );
      return row !== undefined;
    },
  };
}
