/** The add / edit form: URL, description, and the subscriptions picked from the event catalog. */
import type { EndpointView } from '../../manage/view.js';
import type { Catalog } from '../catalog.js';
import { type Html, html, pathOf } from '../html.js';
import { csrfField, errorBox, framed, type ViewContext } from './context.js';

export interface FormValues {
  readonly url: string;
  readonly description: string;
  readonly events: readonly string[];
}

export const emptyForm: FormValues = { url: '', description: '', events: [] };

export function valuesOf(endpoint: EndpointView): FormValues {
  return { url: endpoint.url, description: endpoint.description ?? '', events: endpoint.events };
}

export function endpointForm(
  ctx: ViewContext,
  catalog: Catalog,
  options: { endpoint?: EndpointView; values: FormValues; error?: string; errorField?: string },
): Html {
  const { endpoint, values, error } = options;
  const action = endpoint ? pathOf(ctx.base, 'endpoints', endpoint.id) : `${ctx.base}/endpoints`;
  const title = endpoint ? 'Edit endpoint' : 'Add an endpoint';
  const invalid = (field: string) =>
    options.errorField === field ? html` aria-invalid="true" aria-describedby="form-error"` : '';
  const all = values.events.includes('*');
  let i = 0;
  const events = [...catalog.values()].map((entry) => {
    const id = `event-${i++}`;
    return html`<div class="event check">
<input type="checkbox" id="${id}" name="events" value="${entry.name}"${values.events.includes(entry.name) ? html` checked` : ''}>
<label for="${id}"><code>${entry.name}</code>${entry.summary ? html` — ${entry.summary}` : ''}${entry.deprecated ? html` <span class="muted">(deprecated)</span>` : ''}</label>
${entry.exampleJson !== undefined ? html`<details><summary>Example payload</summary><pre>${entry.exampleJson}</pre></details>` : ''}
</div>`;
  });
  return framed(
    ctx,
    title,
    'endpoints',
    html`<h1>${title}</h1>
${error ? html`<div id="form-error">${errorBox(error)}</div>` : ''}
<form method="post" action="${action}" novalidate>
${csrfField(ctx)}
<div class="field">
<label for="url">Endpoint URL</label>
<input type="url" id="url" name="url" required maxlength="2048" inputmode="url" autocomplete="url" placeholder="https://example.com/webhooks" value="${values.url}"${invalid('url')}>
<p class="muted" id="url-hint">HTTPS only. Deliveries are POSTed here and signed.</p>
</div>
<div class="field">
<label for="description">Description <span class="muted">(optional)</span></label>
<input type="text" id="description" name="description" maxlength="1000" value="${values.description}">
</div>
<fieldset${invalid('events')}>
<legend>Events to receive</legend>
<div class="event check">
<input type="checkbox" id="event-all" name="events" value="*"${all ? html` checked` : ''}>
<label for="event-all"><strong>All events</strong>, including ones added later</label>
</div>
${events}
</fieldset>
<div class="actions">
<button type="submit">${endpoint ? 'Save changes' : 'Add endpoint'}</button>
<a class="button secondary" href="${endpoint ? pathOf(ctx.base, 'endpoints', endpoint.id) : `${ctx.base}/`}">Cancel</a>
</div>
</form>`,
  );
}
