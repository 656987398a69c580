/** Deliveries: the table (with a selection to redeliver), one delivery's attempts, the dead letters. */
import type { AttemptRecord, Delivery } from '../../deliver/outbox.js';
import type { EndpointView } from '../../manage/view.js';
import { type Html, html, pathOf, relative, time } from '../html.js';
import { badge, csrfField, durationText, framed, type ViewContext } from './context.js';

const finished = (d: Delivery) => d.status === 'succeeded' || d.status === 'dead';

function nextRetry(ctx: ViewContext, d: Delivery): Html {
  if (d.status !== 'pending') return html`<span class="muted">—</span>`;
  return html`${time(d.nextAttemptAt)} <span class="muted">(${relative(d.nextAttemptAt, ctx.now)})</span>`;
}

function lastAttemptText(a: AttemptRecord | undefined): Html {
  if (!a) return html`<span class="muted">not attempted yet</span>`;
  const status = a.statusCode !== undefined ? `HTTP ${a.statusCode}` : (a.errorCode ?? 'no answer');
  return html`${badge(a.outcome)} ${status} · ${durationText(a.durationMs)}`;
}

export interface SelectionForm {
  /** Where the "Redeliver selected" form posts. */
  readonly action: string;
  readonly label: string;
}

export function deliveriesTable(
  ctx: ViewContext,
  deliveries: readonly Delivery[],
  lastAttempts: ReadonlyMap<string, AttemptRecord>,
  form: SelectionForm,
  endpoints?: ReadonlyMap<string, EndpointView>,
): Html {
  if (deliveries.length === 0) return html`<p>No deliveries.</p>`;
  const rows = deliveries.map((d) => {
    const endpoint = endpoints?.get(d.endpointId);
    return html`<tr>
<td>${
      finished(d)
        ? html`<input type="checkbox" name="delivery" value="${d.id}" aria-label="${`Select delivery ${d.id} (${d.eventType})`}">`
        : ''
    }</td>
<td><a href="${pathOf(ctx.base, 'deliveries', d.id)}"><code>${d.eventType}</code></a><br><span class="muted break">${d.id}</span></td>
${endpoints ? html`<td class="wrap">${endpoint ? html`<a href="${pathOf(ctx.base, 'endpoints', endpoint.id)}">${endpoint.url}</a>` : d.endpointId}</td>` : ''}
<td>${badge(d.status)}</td>
<td>${d.attempts}</td>
<td>${lastAttemptText(lastAttempts.get(d.id))}</td>
<td>${nextRetry(ctx, d)}</td>
<td>${time(d.finishedAt ?? d.createdAt)}</td>
</tr>`;
  });
  return html`<form method="post" action="${form.action}">
${csrfField(ctx)}
<div class="scroll" role="region" aria-label="${form.label}" tabindex="0"><table>
<caption>${form.label}: ${deliveries.length}</caption>
<thead><tr><th scope="col"><span class="muted">Select</span></th><th scope="col">Event</th>${endpoints ? html`<th scope="col">Endpoint</th>` : ''}<th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last attempt</th><th scope="col">Next retry</th><th scope="col">Finished or created</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>
<div class="actions"><button type="submit">Redeliver selected</button></div>
</form>`;
}

export function deliveryDetail(
  ctx: ViewContext,
  delivery: Delivery,
  endpoint: EndpointView | undefined,
  attempts: readonly AttemptRecord[],
  notice: Html,
): Html {
  const rows = attempts.map(
    (a) => html`<tr>
<td>${a.attempt}</td>
<td>${badge(a.outcome)}</td>
<td>${a.statusCode ?? html`<span class="muted">—</span>`}</td>
<td>${durationText(a.durationMs)}</td>
<td class="wrap">${a.errorCode ? html`<code>${a.errorCode}</code> ` : ''}${a.error ?? ''}</td>
<td>${a.responseSnippet !== undefined ? html`<pre>${a.responseSnippet}</pre>` : html`<span class="muted">empty</span>`}</td>
<td>${time(a.startedAt)}</td>
</tr>`,
  );
  return framed(
    ctx,
    'Delivery',
    undefined,
    html`<h1>Delivery <code class="break">${delivery.id}</code></h1>
${notice}
<dl>
<dt>Event</dt><dd><code>${delivery.eventType}</code></dd>
<dt>Message</dt><dd><code>${delivery.messageId}</code></dd>
<dt>Endpoint</dt><dd>${endpoint ? html`<a href="${pathOf(ctx.base, 'endpoints', endpoint.id)}">${endpoint.url}</a>` : delivery.endpointId}</dd>
<dt>Status</dt><dd>${badge(delivery.status)}</dd>
<dt>Attempts</dt><dd>${delivery.attempts}</dd>
<dt>Next retry</dt><dd>${nextRetry(ctx, delivery)}</dd>
<dt>Created</dt><dd>${time(delivery.createdAt)}</dd>
<dt>Finished</dt><dd>${time(delivery.finishedAt)}</dd>
${delivery.lastError ? html`<dt>Last error</dt><dd>${delivery.lastError}</dd>` : ''}
</dl>
${
  finished(delivery)
    ? html`<form method="post" action="${pathOf(ctx.base, 'deliveries', delivery.id, 'redeliver')}">${csrfField(ctx)}<button type="submit">Redeliver</button></form>`
    : ''
}
<h2>Attempts</h2>
${
  attempts.length === 0
    ? html`<p>Not attempted yet.</p>`
    : html`<div class="scroll" role="region" aria-label="Attempts" tabindex="0"><table>
<caption>Attempts, newest first</caption>
<thead><tr><th scope="col">#</th><th scope="col">Outcome</th><th scope="col">HTTP status</th><th scope="col">Duration</th><th scope="col">Error</th><th scope="col">Response</th><th scope="col">Started</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>`
}`,
  );
}

export function deadLetters(
  ctx: ViewContext,
  deliveries: readonly Delivery[],
  lastAttempts: ReadonlyMap<string, AttemptRecord>,
  endpoints: ReadonlyMap<string, EndpointView>,
  selected: string | undefined,
  notice: Html,
): Html {
  const options = [...endpoints.values()].map(
    (e) => html`<option value="${e.id}"${e.id === selected ? html` selected` : ''}>${e.url}</option>`,
  );
  const action = `${ctx.base}/dead-letters/redeliver${selected ? `?endpoint=${encodeURIComponent(selected)}` : ''}`;
  return framed(
    ctx,
    'Dead letters',
    'dead-letters',
    html`<h1>Dead letters</h1>
<p>Deliveries that failed every attempt. Fix the receiver, then redeliver them.</p>
${notice}
<form method="get" action="${ctx.base}/dead-letters" class="actions">
<div><label for="endpoint-filter">Endpoint</label>
<select id="endpoint-filter" name="endpoint"><option value="">All endpoints</option>${options}</select></div>
<button class="secondary" type="submit">Show</button>
</form>
${deliveriesTable(ctx, deliveries, lastAttempts, { action, label: 'Dead letters' }, endpoints)}`,
  );
}
