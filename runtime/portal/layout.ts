/**
 * The page frame (skip link, header, navigation, main landmark) and the headers every portal answer
 * carries: a Content-Security-Policy that allows no script at all and only this file's stylesheet (by
 * hash), no caching (pages show secrets once), no framing, no referrer (a link's token stays here).
 */
import { createHash } from 'node:crypto';
import { Html, html } from './html.js';

const CSS = `
:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;--accent:#0550ae;--bad:#a40e26;--ok:#116329;--warn:#7d4e00;--soft:#f6f8fa}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--line:#3d444d;--accent:#6cb6ff;--bad:#ff9492;--ok:#6fdd8b;--warn:#e3b341;--soft:#151b23}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.5rem;z-index:1}
header{border-bottom:1px solid var(--line);padding:.75rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center}
header .brand{font-weight:600;margin-right:auto}
nav ul{list-style:none;display:flex;gap:1rem;margin:0;padding:0;flex-wrap:wrap}
nav a[aria-current=page]{font-weight:600}
main{max-width:64rem;margin:0 auto;padding:1rem}
h1{font-size:1.5rem;margin:.5rem 0 1rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.scroll{overflow-x:auto;border:1px solid var(--line);border-radius:6px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--soft);font-weight:600}
caption{text-align:left;padding:.5rem .6rem;font-weight:600}
td.wrap,.break{overflow-wrap:anywhere}
.muted{color:var(--muted)}
.status{font-weight:600;white-space:nowrap}
.s-succeeded,.s-enabled{color:var(--ok)}.s-dead,.s-failed,.s-disabled{color:var(--bad)}.s-pending,.s-delivering{color:var(--warn)}
form.inline{display:inline}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end;margin:.75rem 0}
.field{margin:0 0 1rem}
label{display:block;font-weight:600;margin-bottom:.25rem}
.check label{display:inline;font-weight:400}
input[type=url],input[type=text],select,textarea{width:100%;max-width:40rem;font:inherit;padding:.45rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
input[type=checkbox]{width:1.15rem;height:1.15rem;vertical-align:middle}
fieldset{border:1px solid var(--line);border-radius:6px;margin:0 0 1rem;padding:.5rem 1rem}
legend{font-weight:600;padding:0 .25rem}
.event{padding:.35rem 0;border-bottom:1px solid var(--line)}.event:last-child{border-bottom:0}
button,.button{font:inherit;padding:.45rem .9rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:var(--bg);cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:transparent;color:var(--accent)}
button.danger{border-color:var(--bad);background:transparent;color:var(--bad)}
pre,code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--soft);padding:.6rem;border-radius:6px;overflow:auto;max-height:20rem;white-space:pre-wrap;overflow-wrap:anywhere}
.notice,.error{padding:.6rem .8rem;border-radius:6px;margin:0 0 1rem;border:1px solid}
.notice{border-color:var(--ok)}.error{border-color:var(--bad);color:var(--bad)}
.secret{font-size:1rem;padding:.6rem;border:2px dashed var(--warn);display:block;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 1rem}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
@media (max-width:40rem){dl{grid-template-columns:1fr}dd{margin-bottom:.4rem}main{padding:.75rem}}
`;

const STYLE_HASH = createHash('sha256').update(CSS).digest('base64');
/** The stylesheet goes in as written (it is this file's constant, hashed into the CSP). */
const STYLE = new Html(CSS);

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

export interface Frame {
  readonly title: string;
  readonly appName: string;
  readonly base: string;
  /** Which navigation entry is the current page. */
  readonly current?: 'endpoints' | 'dead-letters';
  /** Signed-in frame: the tenant and the session's CSRF token (for the sign-out form). */
  readonly session?: { readonly tenant: string; readonly csrf: string };
  /** `<meta http-equiv=refresh>` target (the page that opens a session). */
  readonly refreshTo?: string;
}

export function page(frame: Frame, body: Html): Html {
  const nav = (key: Frame['current'], href: string, label: string) =>
    html`<li><a href="${href}"${frame.current === key ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${frame.refreshTo ? html`<meta http-equiv="refresh" content="0;url=${frame.refreshTo}">` : ''}
<title>${frame.title} · ${frame.appName}</title>
<style>${STYLE}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
<span class="brand">${frame.appName}</span>
${
  frame.session
    ? html`<nav aria-label="Portal"><ul>${nav('endpoints', `${frame.base}/`, 'Endpoints')}${nav(
        'dead-letters',
        `${frame.base}/dead-letters`,
        'Dead letters',
      )}</ul></nav>
<span class="muted">Account <strong>${frame.session.tenant}</strong></span>
<form class="inline" method="post" action="${frame.base}/logout"><input type="hidden" name="_csrf" value="${frame.session.csrf}"><button class="secondary" type="submit">Sign out</button></form>`
    : ''
}
</header>
<main id="main" tabindex="-1">
${body}
</main>
</body>
</html>`;
}

export function htmlResponse(status: number, body: Html, headers: Record<string, string> = {}): Response {
  return new Response(body.value, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', ...SECURITY_HEADERS, ...headers },
  });
}
