/** The SQLite outbox's endpoint registry: create, read, patch, rotate secrets, enable, disable, delete. */
import { WebhookError } from '../../../errors.js';
import type { EndpointPatch, EndpointRegistry, NewEndpoint } from '../../outbox.js';
import { randomId } from '../../random-id.js';
import type { StoredSecret } from '../../secret-box.js';
import { resolveTenant } from '../../tenant.js';
import { keptSecrets, type Row } from '../rows.js';
import type { Db, SqliteContext } from './context.js';

/** A verification of the URL stored after the patch records it; any other new URL is unverified. */
function verifiedAfter(patch: EndpointPatch, url: string, row: Row): unknown {
  if (patch.verified?.url === url) return patch.verified.at;
  return url === row.url ? row.verified_at : null;
}

export function sqliteEndpoints(ctx: SqliteContext): EndpointRegistry {
  const { T, stmt, codec, ownTenant, tenantOf } = ctx;
  const selectScoped = (d: Db, id: string, tenant: { tenant: string | null }) =>
    stmt(d, `SELECT * FROM ${T.endpoints} WHERE id = ? AND ${ownTenant}`).get(id, tenant) as Row | undefined;
  const reread = (d: Db, id: string) => ctx.toEndpoint(ctx.selectEndpoint(d, id) as Row);

  return {
    async createEndpoint(input: NewEndpoint, now: number) {
      const d = await ctx.db();
      const tenant = resolveTenant(ctx.tenancy, input.tenant, 'createEndpoint');
      const id = input.id ?? randomId('ep');
      const secrets = [codec.store({ secret: input.secret, createdAt: now }, id)];
      try {
        stmt(
          d,
          `INSERT INTO ${T.endpoints} (id, tenant, url, events, secrets, rate_limit, description, verified_at, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          id,
          tenant,
          codec.storeUrl(input.url, id),
          JSON.stringify(input.events),
          JSON.stringify(secrets),
          input.rateLimit ?? null,
          input.description ?? null,
          input.verifiedAt ?? null,
          now,
          now,
        );
      } catch (error) {
        throw new WebhookError('invalid_argument', `Endpoint "${id}" already exists`, { cause: error });
      }
      return reread(d, id);
    },

    async getEndpoint(id, scope) {
      const tenant = tenantOf(scope);
      const row = selectScoped(await ctx.db(), id, tenant);
      return row ? ctx.toEndpoint(row) : undefined;
    },

    async listEndpoints(scope) {
      const tenant = tenantOf(scope);
      const d = await ctx.db();
      const rows = stmt(d, `SELECT * FROM ${T.endpoints} WHERE ${ownTenant} ORDER BY created_at, id`).all(
        tenant,
      ) as Row[];
      return rows.map(ctx.toEndpoint);
    },

    async updateEndpoint(id, patch: EndpointPatch, now, scope) {
      const tenant = tenantOf(scope);
      const d = await ctx.db();
      return d
        .transaction(() => {
          const row = selectScoped(d, id, tenant);
          if (!row) return undefined;
          // A broker destination's credentials are sealed like its secrets (secret-box.ts).
          const url = patch.url !== undefined ? codec.storeUrl(patch.url, id) : (row.url as string);
          stmt(
            d,
            `UPDATE ${T.endpoints} SET url = ?, events = ?, description = ?, rate_limit = ?, verified_at = ?, updated_at = ?
             WHERE id = ?`,
          ).run(
            url,
            patch.events ? JSON.stringify(patch.events) : row.events,
            patch.description === undefined ? row.description : patch.description,
            patch.rateLimit === undefined ? row.rate_limit : patch.rateLimit,
            verifiedAfter(patch, url, row),
            now,
            id,
          );
          return reread(d, id);
        })
        .immediate();
    },

    async deleteEndpoint(id, scope) {
      const tenant = tenantOf(scope);
      const d = await ctx.db();
      return d
        .transaction(() => {
          if (!selectScoped(d, id, tenant)) return false;
          stmt(d, `DELETE FROM ${T.attempts} WHERE endpoint_id = ?`).run(id);
          stmt(d, `DELETE FROM ${T.deliveries} WHERE endpoint_id = ?`).run(id);
          return stmt(d, `DELETE FROM ${T.endpoints} WHERE id = ?`).run(id).changes > 0;
        })
        .immediate();
    },

    async rotateSecret(id, secret, now, overlapUntil, scope) {
      const tenant = tenantOf(scope);
      const d = await ctx.db();
      return d
        .transaction(() => {
          const row = selectScoped(d, id, tenant);
          if (!row) return undefined;
          const kept = keptSecrets(JSON.parse(row.secrets as string) as StoredSecret[], now, overlapUntil);
          const secrets = [...kept, codec.store({ secret, createdAt: now }, id)];
          stmt(d, `UPDATE ${T.endpoints} SET secrets = ?, updated_at = ? WHERE id = ?`).run(
            JSON.stringify(secrets),
            now,
            id,
          );
          return reread(d, id);
        })
        .immediate();
    },

    async enableEndpoint(id, now, scope) {
      const tenant = tenantOf(scope);
      const d = await ctx.db();
      return d
        .transaction(() => {
          const changed = stmt(
            d,
            `UPDATE ${T.endpoints} SET enabled = 1, disabled_reason = NULL, consecutive_failures = 0, failing_since = NULL, updated_at = ?
             WHERE id = ? AND ${ownTenant}`,
          ).run(now, id, tenant).changes;
          if (changed === 0) return undefined;
          stmt(
            d,
            `UPDATE ${T.deliveries} SET next_attempt_at = ?, updated_at = ?
             WHERE endpoint_id = ? AND status = 'pending' AND next_attempt_at > ?`,
          ).run(now, now, id, now);
          return reread(d, id);
        })
        .immediate();
    },

    async disableEndpoint(id, reason, now, scope) {
      const tenant = tenantOf(scope);
      const d = await ctx.db();
      const row = stmt(
        d,
        `UPDATE ${T.endpoints} SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ? AND ${ownTenant}
         RETURNING *`,
      ).get(reason, now, id, tenant) as Row | undefined;
      return row ? ctx.toEndpoint(row) : undefined;
    },
  };
}
