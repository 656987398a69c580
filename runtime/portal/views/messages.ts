/** Pages with one message: the secret shown once, the session opener, and errors. */
import type { EndpointView } from '../../manage/view.js';
import { type Html, html, pathOf, time } from '../html.js';
import { page } from '../layout.js';
import { framed, type ViewContext } from './context.js';

export function secretOnce(
  ctx: ViewContext,
  endpoint: EndpointView,
  secret: string,
  rotation?: { readonly previousSecretExpiresAt: string },
  verification?: { readonly ok: boolean; readonly message?: string },
): Html {
  return framed(
    ctx,
    'Signing secret',
    'endpoints',
    html`<h1>${rotation ? 'New signing secret' : 'Endpoint added'}</h1>
${
  verification?.ok === true
    ? html`<p class="notice" role="status">Verified: the endpoint acknowledged the verification request and is enabled.</p>`
    : verification
      ? html`<p class="error" role="alert">Not verified — the endpoint stays disabled until it acknowledges: ${verification.message ?? ''}. Fix your receiver, then press “Enable” on the endpoint’s page to verify again.</p>`
      : ''
}
<p>Copy the signing secret now and store it with your receiver: <strong>it is shown only once</strong>.</p>
<label for="secret">Signing secret for <span class="break">${endpoint.url}</span></label>
<input type="text" id="secret" class="secret" readonly value="${secret}" autocomplete="off" spellcheck="false">
${
  rotation
    ? html`<p>The previous secret keeps signing until ${time(Date.parse(rotation.previousSecretExpiresAt))}: every delivery until then carries both signatures, so switch your receiver over before that.</p>`
    : ''
}
<p><a class="button" href="${pathOf(ctx.base, 'endpoints', endpoint.id)}">I have stored it — go to the endpoint</a></p>`,
  );
}

/** Answer to opening a link: sets the cookie, then moves on (a same-site navigation, see handler). */
export function opening(appName: string, base: string): Html {
  return page(
    { title: 'Opening', appName, base, refreshTo: `${base}/` },
    html`<h1>Opening your webhook portal…</h1><p><a href="${base}/">Continue</a></p>`,
  );
}

export function errorPage(
  appName: string,
  base: string,
  title: string,
  text: string,
  ctx?: ViewContext,
): Html {
  const body = html`<h1>${title}</h1><p>${text}</p>${ctx ? html`<p><a href="${ctx.base}/">Back to your endpoints</a></p>` : ''}`;
  return ctx ? framed(ctx, title, undefined, body) : page({ title, appName, base }, body);
}
