/**
 * The verified raw body → the value the receiver dispatches: JSON by default; form-encoded and
 * multipart bodies when the contract declares them (`Contract.bodies`) and the request's
 * `Content-Type` says so. Malformed input is `invalid_body`, never a thrown parser error.
 */
import { toText } from '../bytes.js';
import type { BodyFormats } from '../contract.js';
import { WebhookError } from '../errors.js';
import { getHeader } from '../headers.js';
import type { HeadersInput } from '../signing/scheme.js';

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new WebhookError('invalid_body', `${what} is not valid JSON`, { cause });
  }
}

function addField(fields: Record<string, unknown>, name: string, value: unknown): void {
  if (!Object.hasOwn(fields, name)) {
    Object.defineProperty(fields, name, { value, enumerable: true, writable: true, configurable: true });
    return;
  }
  const current = fields[name];
  fields[name] = Array.isArray(current) ? [...current, value] : [current, value];
}

function decodeForm(text: string, json: ReadonlySet<string>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    addField(fields, name, json.has(name) ? parseJson(value, `Form field "${name}"`) : value);
  }
  return fields;
}

function parameter(header: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|;)\\s*${name}\\*?=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(
    header,
  );
  if (match === null) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}

function indexOf(bytes: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let i = from; i <= bytes.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

const CRLF2 = new Uint8Array([13, 10, 13, 10]);

function decodeMultipart(
  bytes: Uint8Array,
  contentType: string,
  json: ReadonlySet<string>,
): Record<string, unknown> {
  const boundary = parameter(contentType, 'boundary');
  if (boundary === undefined || boundary === '') {
    throw new WebhookError('invalid_body', 'The multipart body has no boundary in its Content-Type');
  }
  const delimiter = new TextEncoder().encode(`--${boundary}`);
  const fields: Record<string, unknown> = {};
  let at = indexOf(bytes, delimiter, 0);
  if (at < 0) throw new WebhookError('invalid_body', 'The multipart body has no part');
  for (;;) {
    const start = at + delimiter.length;
    // `--` after a delimiter closes the body.
    if (bytes[start] === 45 && bytes[start + 1] === 45) return fields;
    const next = indexOf(bytes, delimiter, start);
    if (next < 0) throw new WebhookError('invalid_body', 'The multipart body is not closed');
    const part = bytes.subarray(start + 2, next - 2); // drop the CRLFs around the part
    const split = indexOf(part, CRLF2, 0);
    if (split < 0) throw new WebhookError('invalid_body', 'A multipart part has no header block');
    const head = new TextDecoder().decode(part.subarray(0, split));
    const content = part.subarray(split + 4);
    const headers = new Map<string, string>();
    for (const line of head.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const disposition = headers.get('content-disposition') ?? '';
    const name = parameter(disposition, 'name');
    if (name === undefined) throw new WebhookError('invalid_body', 'A multipart part has no field name');
    const type = headers.get('content-type') ?? 'text/plain';
    const filename = parameter(disposition, 'filename');
    let value: unknown;
    if (filename !== undefined) {
      let base64 = '';
      for (let i = 0; i < content.length; i += 0x8000)
        base64 += String.fromCharCode(...content.subarray(i, i + 0x8000));
      // OpenAPI types a file part as `type: string, format: binary`: a string, here base64.
      value = btoa(base64);
    } else {
      const text = new TextDecoder().decode(content);
      value =
        json.has(name) || /^application\/([\w.-]+\+)?json\b/i.test(type)
          ? parseJson(text, `Multipart field "${name}"`)
          : text;
    }
    addField(fields, name, value);
    at = next;
  }
}

export function decodeBody(
  formats: BodyFormats | undefined,
  bytes: Uint8Array,
  headers: HeadersInput,
): unknown {
  if (formats !== undefined) {
    const contentType = getHeader(headers, 'content-type') ?? '';
    const essence = (contentType.split(';')[0] ?? '').trim().toLowerCase();
    const json = new Set(formats.jsonFields ?? []);
    if (formats.form === true && essence === 'application/x-www-form-urlencoded') {
      return decodeForm(toText(bytes), json);
    }
    if (formats.multipart === true && essence === 'multipart/form-data') {
      return decodeMultipart(bytes, contentType, json);
    }
  }
  return parseJson(toText(bytes), 'The body');
}
