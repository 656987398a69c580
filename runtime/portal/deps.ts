/** What the portal's pages and actions share: the outbox, a manager per tenant, the sender, the catalog. */
import type { Outbox } from '../deliver/outbox.js';
import type { Sender } from '../deliver/sender.js';
import type { EndpointManager } from '../manage/endpoints.js';
import type { Catalog } from './catalog.js';
import type { Html } from './html.js';
import type { ViewContext } from './views/context.js';

export interface PortalDeps {
  readonly outbox: Outbox;
  readonly managerFor: (tenant: string) => EndpointManager;
  // biome-ignore lint/suspicious/noExplicitAny: the portal sends catalog examples of any event
  readonly sender: Sender<any>;
  readonly catalog: Catalog;
  readonly now: () => number;
  /** Endpoint verification is on: a registration's page says whether it passed. */
  readonly verifies?: boolean;
}

/** A page to answer with (status 200 unless given) or a redirect to a path under the portal. */
export type Outcome =
  | { readonly kind: 'page'; readonly body: Html; readonly status?: number }
  | { readonly kind: 'redirect'; readonly to: string };

export interface Call {
  readonly ctx: ViewContext;
  readonly url: URL;
  /** Path segments after the base path, decoded. */
  readonly parts: readonly string[];
}

export const redirect = (to: string): Outcome => ({ kind: 'redirect', to });
export const pageOf = (body: Html, status?: number): Outcome => ({
  kind: 'page',
  body,
  ...(status !== undefined ? { status } : {}),
});

/** Tenant scope of every outbox call a page makes. */
export const scopeOf = (ctx: ViewContext) => ({ tenant: ctx.tenant });
