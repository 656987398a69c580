/**
 * The POST routes (the handler has checked the session and its CSRF token). Each acts through the
 * session's tenant only; a result is a redirect to a fixed portal path (no open redirect), or a page:
 * the form again with the problem, or a secret shown once.
 */
import { isWebhookError, WebhookError } from '../errors.js';
import type { EndpointView } from '../manage/view.js';
import { type Call, type Outcome, type PortalDeps, pageOf, redirect, scopeOf } from './deps.js';
import { listField, textField } from './forms.js';
import { pathOf } from './html.js';
import { endpointForm, type FormValues } from './views/endpoint-form.js';
import { secretOnce } from './views/messages.js';

const MAX_SELECTION = 500;
/** Refusals a customer can fix in the form; anything else is an error page. */
const FORM_ERRORS = new Set([
  'invalid_url',
  'insecure_url',
  'blocked_address',
  'dns_failure',
  'unknown_event',
  'invalid_argument',
  'endpoint_unverified',
]);

function formValues(form: URLSearchParams): FormValues {
  const events = listField(form, 'events', 'events', 500);
  return {
    url: textField(form, 'url', 'The URL', 2048),
    description: textField(form, 'description', 'The description', 1000),
    events: events.includes('*') ? ['*'] : events,
  };
}

export async function runAction(
  deps: PortalDeps,
  call: Call,
  form: URLSearchParams,
): Promise<Outcome | undefined> {
  const { ctx, url, parts } = call;
  const manager = deps.managerFor(ctx.tenant);
  const scope = scopeOf(ctx);
  const [section, id, action, ...extra] = parts;
  if (extra.length > 0 || section === undefined) return undefined;
  const endpointPage = (endpointId: string, notice: string, n?: number) =>
    redirect(
      `${pathOf(ctx.base, 'endpoints', endpointId)}?notice=${notice}${n !== undefined ? `&n=${n}` : ''}`,
    );

  if (section === 'endpoints' && action === undefined) {
    if (id === 'new') return undefined;
    const existing = id !== undefined ? await manager.get(id) : undefined;
    const values = formValues(form);
    try {
      if (values.events.length === 0) {
        throw new WebhookError('invalid_argument', 'Pick at least one event', {
          details: { field: 'events' },
        });
      }
      if (existing) {
        await manager.update(existing.id, {
          url: values.url,
          events: values.events,
          description: values.description === '' ? null : values.description,
        });
        return endpointPage(existing.id, 'saved');
      }
      const { endpoint, secret } = await manager.register({
        url: values.url,
        events: values.events,
        ...(values.description !== '' ? { description: values.description } : {}),
      });
      const verified = endpoint.enabled && deps.verifies;
      return pageOf(secretOnce(ctx, endpoint, secret, undefined, verified ? { ok: true } : undefined), 201);
    } catch (error) {
      if (!isWebhookError(error) || !FORM_ERRORS.has(error.code)) throw error;
      const { endpoint, secret } = error.details;
      if (error.code === 'endpoint_unverified' && !existing && typeof secret === 'string' && endpoint) {
        // Registered but disabled: the secret is still shown once, with why it is not enabled.
        const failed = { ok: false, message: error.message };
        return pageOf(secretOnce(ctx, endpoint as EndpointView, secret, undefined, failed), 422);
      }
      const field = error.code === 'unknown_event' || error.details.field === 'events' ? 'events' : 'url';
      const shown = { values, error: error.message, errorField: field };
      return pageOf(
        endpointForm(ctx, deps.catalog, existing ? { ...shown, endpoint: existing } : shown),
        400,
      );
    }
  }

  if (section === 'endpoints' && id !== undefined) {
    const now = deps.now();
    switch (action) {
      case 'disable': {
        // Replaces the reason only: `verifiedAt` stays, so Enable still challenges an endpoint that
        // never verified (manager.enable).
        if (!(await deps.outbox.disableEndpoint(id, 'manual', now, scope))) throw notFound();
        return endpointPage(id, 'disabled');
      }
      case 'enable':
        await manager.enable(id);
        return endpointPage(id, 'enabled');
      case 'rotate-secret': {
        const endpoint = await manager.get(id);
        const rotated = await manager.rotateSecret(id);
        return pageOf(secretOnce(ctx, endpoint, rotated.secret, rotated));
      }
      case 'test': {
        const endpoint = await manager.get(id);
        const entry = deps.catalog.get(form.get('event') ?? '');
        if (!entry || entry.example === undefined) {
          throw new WebhookError('invalid_argument', 'Pick an event that has an example payload');
        }
        const subscribedTo = endpoint.events.includes('*') || endpoint.events.includes(entry.name);
        if (!subscribedTo || !endpoint.enabled) return endpointPage(id, 'not-subscribed');
        const sent = await deps.sender.send(entry.name, entry.example, {
          tenant: ctx.tenant,
          endpoints: [id],
        });
        return endpointPage(id, sent.deliveryIds.length > 0 ? 'test-sent' : 'not-subscribed');
      }
      case 'redeliver': {
        await manager.get(id);
        const n = await redeliverSelected(deps, call, form);
        return endpointPage(id, n === undefined ? 'none-selected' : 'redelivered', n);
      }
      default:
        return undefined;
    }
  }

  if (section === 'deliveries' && id !== undefined && action === 'redeliver') {
    if (!(await deps.outbox.getDelivery(id, scope))) throw notFound();
    const n = await deps.outbox.redeliver({ deliveryId: id }, deps.now(), scope);
    return redirect(`${pathOf(ctx.base, 'deliveries', id)}?notice=redelivered&n=${n}`);
  }

  if (section === 'dead-letters' && id === 'redeliver' && action === undefined) {
    const n = await redeliverSelected(deps, call, form);
    const filter = url.searchParams.get('endpoint');
    const back = `${ctx.base}/dead-letters?${filter ? `endpoint=${encodeURIComponent(filter)}&` : ''}`;
    return redirect(`${back}notice=${n === undefined ? 'none-selected' : 'redelivered'}&n=${n ?? 0}`);
  }
  return undefined;
}

/** Redelivers the checked deliveries (of this tenant); `undefined` when none was checked. */
async function redeliverSelected(
  deps: PortalDeps,
  call: Call,
  form: URLSearchParams,
): Promise<number | undefined> {
  const ids = listField(form, 'delivery', 'deliveries', MAX_SELECTION);
  if (ids.length === 0) return undefined;
  const now = deps.now();
  let n = 0;
  for (const deliveryId of ids) n += await deps.outbox.redeliver({ deliveryId }, now, scopeOf(call.ctx));
  return n;
}

const notFound = () => new WebhookError('not_found', 'Not found');
