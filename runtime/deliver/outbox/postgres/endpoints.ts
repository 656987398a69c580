/** The PostgreSQL outbox's endpoint registry: create, read, patch, rotate secrets, enable, disable, delete. */
import { WebhookError } from '../../../errors.js';
import type { EndpointPatch, EndpointRegistry, NewEndpoint } from '../../outbox.js';
import { randomId } from '../../random-id.js';
import type { StoredSecret } from '../../secret-box.js';
import { resolveTenant } from '../../tenant.js';
import { keptSecrets } from '../rows.js';
import { date, type PgContext } from './context.js';

export function pgEndpoints(ctx: PgContext): EndpointRegistry {
  const { T, pool, q, codec, ownTenant, tenantOf } = ctx;
  return {
    async createEndpoint(input: NewEndpoint, now: number) {
      const tenant = resolveTenant(ctx.tenancy, input.tenant, 'createEndpoint');
      await ctx.init();
      const id = input.id ?? randomId('ep');
      const secrets = [codec.store({ secret: input.secret, createdAt: now }, id)];
      const [row] = await q(
        pool,
        `INSERT INTO ${T.endpoints} (id, url, events, secrets, rate_limit, description, created_at, updated_at, tenant, verified_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9) ON CONFLICT (id) DO NOTHING RETURNING *`,
        [
          id,
          codec.storeUrl(input.url, id),
          input.events,
          JSON.stringify(secrets),
          input.rateLimit ?? null,
          input.description ?? null,
          date(now),
          tenant,
          input.verifiedAt !== undefined ? date(input.verifiedAt) : null,
        ],
      );
      if (!row) throw new WebhookError('invalid_argument', `Endpoint "${id}" already exists`);
      return ctx.toEndpoint(row);
    },

    async getEndpoint(id, scope) {
      const tenant = tenantOf(scope);
      await ctx.init();
      const [row] = await q(pool, `SELECT * FROM ${T.endpoints} WHERE id = $1 AND ${ownTenant(2)}`, [
        id,
        tenant,
      ]);
      return row ? ctx.toEndpoint(row) : undefined;
    },

    async listEndpoints(scope) {
      const tenant = tenantOf(scope);
      await ctx.init();
      const rows = await q(
        pool,
        `SELECT * FROM ${T.endpoints} WHERE ${ownTenant(1)} ORDER BY created_at, id`,
        [tenant],
      );
      return rows.map(ctx.toEndpoint);
    },

    async updateEndpoint(id, patch: EndpointPatch, now, scope) {
      const tenant = tenantOf(scope);
      await ctx.init();
      // A patch field that is absent keeps the column ($n IS FALSE); null clears an optional one.
      // verified_at: a verification of the URL stored after the patch records it; any other new URL
      // clears it (the right-hand sides read the row as it was).
      const [row] = await q(
        pool,
        `UPDATE ${T.endpoints} SET
           verified_at = CASE
             WHEN $10::text IS NOT NULL AND $10 = COALESCE($3, url) THEN $11::timestamptz
             WHEN $3::text IS NOT NULL AND $3 <> url THEN NULL
             ELSE verified_at END,
           url = COALESCE($3, url),
           events = COALESCE($4::text[], events),
           description = CASE WHEN $5 THEN $6 ELSE description END,
           rate_limit = CASE WHEN $7 THEN $8::double precision ELSE rate_limit END,
           updated_at = $9
         WHERE id = $1 AND ${ownTenant(2)} RETURNING *`,
        [
          id,
          tenant,
          // A broker destination's credentials are sealed like its secrets (secret-box.ts).
          patch.url !== undefined ? codec.storeUrl(patch.url, id) : null,
          patch.events ? [...patch.events] : null,
          patch.description !== undefined,
          patch.description ?? null,
          patch.rateLimit !== undefined,
          patch.rateLimit ?? null,
          date(now),
          patch.verified?.url ?? null,
          patch.verified ? date(patch.verified.at) : null,
        ],
      );
      return row ? ctx.toEndpoint(row) : undefined;
    },

    async deleteEndpoint(id, scope) {
      const tenant = tenantOf(scope);
      await ctx.init();
      // Deliveries and attempts go with it (ON DELETE CASCADE).
      const result = await pool.query(`DELETE FROM ${T.endpoints} WHERE id = $1 AND ${ownTenant(2)}`, [
        id,
        tenant,
      ]);
      return result.rowCount === 1;
    },

    async rotateSecret(id, secret, now, overlapUntil, scope) {
      const tenant = tenantOf(scope);
      await ctx.init();
      return ctx.inTransaction(async (c) => {
        const [row] = await q(
          c,
          `SELECT * FROM ${T.endpoints} WHERE id = $1 AND ${ownTenant(2)} FOR UPDATE`,
          [id, tenant],
        );
        if (!row) return undefined;
        const kept = keptSecrets(row.secrets as StoredSecret[], now, overlapUntil);
        const [updated] = await q(
          c,
          `UPDATE ${T.endpoints} SET secrets = $2, updated_at = $3 WHERE id = $1 RETURNING *`,
          [id, JSON.stringify([...kept, codec.store({ secret, createdAt: now }, id)]), date(now)],
        );
        return updated ? ctx.toEndpoint(updated) : undefined;
      });
    },

    async enableEndpoint(id, now, scope) {
      const tenant = tenantOf(scope);
      await ctx.init();
      return ctx.inTransaction(async (c) => {
        const [row] = await q(
          c,
          `UPDATE ${T.endpoints} SET enabled = true, disabled_reason = NULL, consecutive_failures = 0, failing_since = NULL,
             updated_at = $2
           WHERE id = $1 AND ${ownTenant(3)} RETURNING *`,
          [id, date(now), tenant],
        );
        if (!row) return undefined;
        await c.query(
          `UPDATE ${T.deliveries} SET next_attempt_at = $2, updated_at = $2
           WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at > $2`,
          [id, date(now)],
        );
        return ctx.toEndpoint(row);
      });
    },

    async disableEndpoint(id, reason, now, scope) {
      const tenant = tenantOf(scope);
      await ctx.init();
      const [row] = await q(
        pool,
        `UPDATE ${T.endpoints} SET enabled = false, disabled_reason = $2, updated_at = $3
         WHERE id = $1 AND ${ownTenant(4)} RETURNING *`,
        [id, reason, date(now), tenant],
      );
      return row ? ctx.toEndpoint(row) : undefined;
    },
  };
}
