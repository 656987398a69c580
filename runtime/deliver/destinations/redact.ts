/**
 * A URL as shown to people: a broker destination's userinfo is its credentials, so every view, API
 * answer, portal page and log line shows `amqp://***@host/…` instead. No `node:*`: the Web entry's
 * management API and portal use it.
 */
export function redactUrl(url: string): string {
  const at = url.indexOf('@');
  const start = url.indexOf('//');
  if (start < 0 || at < 0) return url;
  const end = firstOf(url, ['/', '?', '#'], start + 2);
  if (at > end) return url;
  return `${url.slice(0, start + 2)}***${url.slice(at)}`;
}

function firstOf(text: string, chars: readonly string[], from: number): number {
  let best = text.length;
  for (const c of chars) {
    const i = text.indexOf(c, from);
    if (i >= 0 && i < best) best = i;
  }
  return best;
}

/** A broker destination, not an HTTP endpoint: any scheme but http(s). */
export function isDestinationUrl(url: string | URL): boolean {
  const protocol = typeof url === 'string' ? url.slice(0, url.indexOf(':') + 1).toLowerCase() : url.protocol;
  return protocol !== 'https:' && protocol !== 'http:';
}

/**
 * The URL a form or API client sent back with the `***` it was shown in place of the credentials:
 * the stored credentials stay. Any other userinfo replaces them.
 */
export function keepCredentials(input: string, stored: string): string {
  const start = input.indexOf('//');
  if (start < 0 || !input.startsWith('***@', start + 2)) return input;
  const from = stored.indexOf('//');
  const at = stored.indexOf('@', from + 2);
  const end = firstOf(stored, ['/', '?', '#'], from + 2);
  const userinfo = from >= 0 && at >= 0 && at < end ? stored.slice(from + 2, at) : '';
  const rest = input.slice(start + 2 + 4);
  return userinfo === ''
    ? `${input.slice(0, start + 2)}${rest}`
    : `${input.slice(0, start + 2)}${userinfo}@${rest}`;
}
