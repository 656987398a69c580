/**
 * Tenants: every endpoint belongs to one (a customer or an application), and every fan-out, read and
 * write of the management API is confined to one. An outbox is `single`-tenant (default: a missing
 * tenant means `DEFAULT_TENANT`) or `multi`-tenant (a missing tenant is an error, never a broadcast).
 */
import { WebhookError } from '../errors.js';

export type Tenancy = 'single' | 'multi';

/** The tenant of endpoints registered without one, and of endpoints that predate tenants. */
export const DEFAULT_TENANT = 'default';

const MAX_TENANT_LENGTH = 200;

/** Checks an outbox's `tenancy` option. */
export function checkTenancy(value: unknown, where: string): Tenancy {
  if (value === undefined || value === 'single') return 'single';
  if (value === 'multi') return 'multi';
  throw new WebhookError('invalid_config', `${where}: tenancy must be 'single' or 'multi'`, {
    details: { tenancy: value },
  });
}

/**
 * The tenant a call acts for: the one given (checked), else the default tenant of a single-tenant
 * outbox; a multi-tenant outbox refuses to guess.
 */
export function resolveTenant(tenancy: Tenancy, tenant: string | undefined, where: string): string {
  if (tenant === undefined) {
    if (tenancy === 'single') return DEFAULT_TENANT;
    throw new WebhookError(
      'tenant_required',
      `${where}: this outbox is multi-tenant, so a tenant is required (pass { tenant })`,
    );
  }
  if (typeof tenant !== 'string' || tenant.length === 0 || tenant.length > MAX_TENANT_LENGTH) {
    throw new WebhookError(
      'invalid_argument',
      `${where}: tenant must be a non-empty string of at most ${MAX_TENANT_LENGTH} characters`,
      { details: { option: 'tenant' } },
    );
  }
  return tenant;
}

/** A scope's tenant, checked; `undefined` (every tenant) stays `undefined`. */
export function scopeTenant(scope: { readonly tenant?: string } | undefined, where: string): string | null {
  return scope?.tenant === undefined ? null : resolveTenant('multi', scope.tenant, where);
}
