/** The endpoint list and one endpoint's page (settings, actions, recent deliveries). */
import type { AttemptRecord, Delivery } from '../../deliver/outbox.js';
import type { EndpointView } from '../../manage/view.js';
import { type Catalog, subscribed } from '../catalog.js';
import { type Html, html, pathOf, time } from '../html.js';
import { badge, csrfField, framed, type ViewContext } from './context.js';
import { deliveriesTable } from './deliveries.js';

const stateOf = (e: EndpointView): Html =>
  e.enabled
    ? badge('enabled')
    : html`${badge('disabled')}${e.disabledReason ? html` <span class="muted">(${reasonText(e.disabledReason)})</span>` : ''}`;

function reasonText(reason: string): string {
  if (reason === 'gone') return 'answered 410 Gone';
  if (reason === 'consecutive_failures') return 'too many failures in a row';
  if (reason === 'unverified') return 'not verified yet';
  return 'by you';
}

/**
 * Shown once it matters: a verified endpoint, or a disabled one (Enable challenges it first when it
 * never verified, whatever disabled it). An enabled one with verification off has nothing to show.
 */
const verifiedRow = (e: EndpointView): Html =>
  e.verifiedAt !== null
    ? html`<dt>Verification</dt><dd>verified ${time(Date.parse(e.verifiedAt))}</dd>`
    : e.enabled
      ? html``
      : html`<dt>Verification</dt><dd>not verified</dd>`;

const eventsText = (events: readonly string[]) => (events.includes('*') ? 'All events' : events.join(', '));

export function endpointList(ctx: ViewContext, endpoints: readonly EndpointView[], notice: Html): Html {
  const rows = endpoints.map(
    (e) => html`<tr>
<td class="wrap"><a href="${pathOf(ctx.base, 'endpoints', e.id)}">${e.url}</a>${e.description ? html`<br><span class="muted">${e.description}</span>` : ''}</td>
<td class="wrap">${eventsText(e.events)}</td>
<td>${stateOf(e)}</td>
<td>${e.consecutiveFailures}</td>
<td>${time(Date.parse(e.createdAt))}</td>
</tr>`,
  );
  return framed(
    ctx,
    'Endpoints',
    'endpoints',
    html`<h1>Endpoints</h1>
${notice}
<p><a class="button" href="${ctx.base}/endpoints/new">Add endpoint</a></p>
${
  endpoints.length === 0
    ? html`<p>No endpoints yet. Add one to start receiving webhooks.</p>`
    : html`<div class="scroll" role="region" aria-label="Endpoints" tabindex="0"><table>
<caption>${endpoints.length} ${endpoints.length === 1 ? 'endpoint' : 'endpoints'}</caption>
<thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Failures in a row</th><th scope="col">Created</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}`,
  );
}

export function endpointDetail(
  ctx: ViewContext,
  catalog: Catalog,
  endpoint: EndpointView,
  deliveries: readonly Delivery[],
  lastAttempts: ReadonlyMap<string, AttemptRecord>,
  notice: Html,
): Html {
  const at = (action: string) => pathOf(ctx.base, 'endpoints', endpoint.id, action);
  const testable = subscribed(catalog, endpoint.events).filter((e) => e.example !== undefined);
  return framed(
    ctx,
    'Endpoint',
    'endpoints',
    html`<h1 class="break">Endpoint <code>${endpoint.url}</code></h1>
${notice}
<dl>
<dt>ID</dt><dd><code>${endpoint.id}</code></dd>
<dt>URL</dt><dd>${endpoint.url}</dd>
<dt>Description</dt><dd>${endpoint.description ?? html`<span class="muted">—</span>`}</dd>
<dt>Events</dt><dd>${eventsText(endpoint.events)}</dd>
<dt>State</dt><dd>${stateOf(endpoint)}</dd>
${verifiedRow(endpoint)}
<dt>Failures in a row</dt><dd>${endpoint.consecutiveFailures}</dd>
${endpoint.failingSince === null ? '' : html`<dt>Failing since</dt><dd>${time(Date.parse(endpoint.failingSince))}</dd>`}
<dt>Created</dt><dd>${time(Date.parse(endpoint.createdAt))}</dd>
<dt>Updated</dt><dd>${time(Date.parse(endpoint.updatedAt))}</dd>
</dl>
<div class="actions">
<a class="button secondary" href="${at('edit')}">Edit</a>
${
  endpoint.enabled
    ? html`<form class="inline" method="post" action="${at('disable')}">${csrfField(ctx)}<button class="danger" type="submit">Disable</button></form>`
    : html`<form class="inline" method="post" action="${at('enable')}">${csrfField(ctx)}<button type="submit">Enable</button></form>`
}
<form class="inline" method="post" action="${at('rotate-secret')}">${csrfField(ctx)}<button class="secondary" type="submit">Rotate secret</button></form>
<a class="button secondary" href="${ctx.base}/dead-letters?endpoint=${encodeURIComponent(endpoint.id)}">Dead letters</a>
</div>
<h2>Send a test event</h2>
${
  testable.length === 0
    ? html`<p class="muted">No example payload for the events this endpoint receives.</p>`
    : html`<form method="post" action="${at('test')}" class="actions">${csrfField(ctx)}
<div><label for="test-event">Event</label>
<select id="test-event" name="event">${testable.map((e) => html`<option value="${e.name}">${e.name}</option>`)}</select></div>
<button type="submit">Send test event</button>
</form>`
}
<h2 id="deliveries">Recent deliveries</h2>
${deliveriesTable(ctx, deliveries, lastAttempts, { action: at('redeliver'), label: 'Recent deliveries' })}`,
  );
}
