/** The GET routes: each reads through the session's tenant only, so another tenant's id is not found. */
import type { AttemptRecord } from '../deliver/outbox.js';
import { WebhookError } from '../errors.js';
import type { EndpointView } from '../manage/view.js';
import { type Call, type Outcome, type PortalDeps, pageOf, scopeOf } from './deps.js';
import { noticeOf } from './views/context.js';
import { deadLetters, deliveryDetail } from './views/deliveries.js';
import { emptyForm, endpointForm, valuesOf } from './views/endpoint-form.js';
import { endpointDetail, endpointList } from './views/endpoints.js';

const LIST_LIMIT = 50;

/** The newest attempt of each delivery among `attempts` (newest first). */
function latestByDelivery(attempts: readonly AttemptRecord[]): Map<string, AttemptRecord> {
  const map = new Map<string, AttemptRecord>();
  for (const a of attempts) if (!map.has(a.deliveryId)) map.set(a.deliveryId, a);
  return map;
}

export async function renderPage(deps: PortalDeps, call: Call): Promise<Outcome | undefined> {
  const { ctx, url, parts } = call;
  const manager = deps.managerFor(ctx.tenant);
  const scope = scopeOf(ctx);
  const [section, id, sub, ...extra] = parts;
  if (extra.length > 0) return undefined;

  if (section === undefined) return pageOf(endpointList(ctx, await manager.list(), noticeOf(url)));

  if (section === 'endpoints' && id === 'new' && sub === undefined) {
    return pageOf(endpointForm(ctx, deps.catalog, { values: emptyForm }));
  }
  if (section === 'endpoints' && id !== undefined) {
    const endpoint = await manager.get(id);
    if (sub === 'edit')
      return pageOf(endpointForm(ctx, deps.catalog, { endpoint, values: valuesOf(endpoint) }));
    if (sub !== undefined) return undefined;
    const [deliveries, attempts] = await Promise.all([
      deps.outbox.listDeliveries({ ...scope, endpointId: id, limit: LIST_LIMIT }),
      deps.outbox.listAttempts({ ...scope, endpointId: id, limit: LIST_LIMIT * 4 }),
    ]);
    return pageOf(
      endpointDetail(ctx, deps.catalog, endpoint, deliveries, latestByDelivery(attempts), noticeOf(url)),
    );
  }

  if (section === 'deliveries' && id !== undefined && sub === undefined) {
    const delivery = await deps.outbox.getDelivery(id, scope);
    if (!delivery) throw new WebhookError('not_found', 'No such delivery');
    const [endpoint, attempts] = await Promise.all([
      manager.get(delivery.endpointId).catch(() => undefined),
      deps.outbox.listAttempts({ ...scope, deliveryId: id, limit: 100 }),
    ]);
    return pageOf(deliveryDetail(ctx, delivery, endpoint, attempts, noticeOf(url)));
  }

  if (section === 'dead-letters' && id === undefined) {
    const endpoints = new Map<string, EndpointView>((await manager.list()).map((e) => [e.id, e]));
    const filter = url.searchParams.get('endpoint') || undefined;
    // An id that is not this tenant's shows nothing (the list is scoped anyway), like an unknown one.
    if (filter !== undefined && !endpoints.has(filter))
      throw new WebhookError('not_found', 'No such endpoint');
    const deliveries = await deps.outbox.listDeliveries({
      ...scope,
      status: 'dead',
      limit: LIST_LIMIT * 2,
      ...(filter ? { endpointId: filter } : {}),
    });
    const attempts = await Promise.all(
      deliveries.map((d) => deps.outbox.listAttempts({ ...scope, deliveryId: d.id, limit: 1 })),
    );
    return pageOf(
      deadLetters(ctx, deliveries, latestByDelivery(attempts.flat()), endpoints, filter, noticeOf(url)),
    );
  }
  return undefined;
}
