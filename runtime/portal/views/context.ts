/** What every signed-in page needs, and the small pieces pages share (CSRF field, notices, badges). */
import { type Html, html } from '../html.js';
import { type Frame, page } from '../layout.js';

export interface ViewContext {
  readonly base: string;
  readonly appName: string;
  readonly tenant: string;
  readonly csrf: string;
  readonly now: number;
}

export function framed(ctx: ViewContext, title: string, current: Frame['current'], body: Html): Html {
  return page(
    {
      title,
      appName: ctx.appName,
      base: ctx.base,
      ...(current ? { current } : {}),
      session: { tenant: ctx.tenant, csrf: ctx.csrf },
    },
    body,
  );
}

export const csrfField = (ctx: ViewContext): Html =>
  html`<input type="hidden" name="_csrf" value="${ctx.csrf}">`;

/** Notices after a redirect are codes from this table: a query string cannot put text on the page. */
const NOTICES: Readonly<Record<string, (n: number) => string>> = {
  saved: () => 'Endpoint saved.',
  disabled: () => 'Endpoint disabled: deliveries wait until it is enabled again.',
  enabled: () => 'Endpoint enabled: waiting deliveries are due now.',
  'test-sent': () => 'Test event queued; it appears below once attempted.',
  'not-subscribed': () => 'The endpoint is not subscribed to that event: nothing was sent.',
  redelivered: (n) => `${n} ${n === 1 ? 'delivery' : 'deliveries'} queued again.`,
  'none-selected': () => 'Select at least one finished delivery to redeliver.',
};

export function noticeOf(url: URL): Html {
  const make = NOTICES[url.searchParams.get('notice') ?? ''];
  if (!make) return html``;
  const n = Number.parseInt(url.searchParams.get('n') ?? '0', 10);
  return html`<p class="notice" role="status">${make(Number.isFinite(n) ? n : 0)}</p>`;
}

export function errorBox(message: string | undefined): Html {
  return message ? html`<p class="error" role="alert">${message}</p>` : html``;
}

export function badge(status: string): Html {
  return html`<span class="status s-${status}">${status}</span>`;
}

export function durationText(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}
