/**
 * HTML by tagged template: every interpolated value is escaped unless it is already `Html` (the
 * output of `html` itself), so text from the database, the contract or the request cannot become
 * markup. Arrays are joined; `null`, `undefined` and `false` render nothing.
 */

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}

/** A path under the portal with each segment percent-encoded (ids come from the database). */
export function pathOf(base: string, ...segments: string[]): string {
  return [base, ...segments.map(encodeURIComponent)].join('/');
}

/** `2026-01-01 12:00:05 UTC` inside a `<time>` element. */
export function time(ms: number | undefined): Html {
  if (ms === undefined || !Number.isFinite(ms)) return html`<span class="muted">—</span>`;
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

/** `in 4 s`, `3 min ago`: next to absolute times, where the distance is what matters. */
export function relative(ms: number, now: number): string {
  const delta = Math.round((ms - now) / 1000);
  const abs = Math.abs(delta);
  const text =
    abs < 60
      ? `${abs} s`
      : abs < 3600
        ? `${Math.round(abs / 60)} min`
        : abs < 86_400
          ? `${Math.round(abs / 3600)} h`
          : `${Math.round(abs / 86_400)} d`;
  return delta >= 0 ? `in ${text}` : `${text} ago`;
}
