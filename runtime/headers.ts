/**
 * Header access that works the same for Fetch `Headers` and Node's lower-cased header records:
 * `getHeader` (trusts the value's type) and `readHeader` (total: `malformed_header` for anything but
 * text), which the schemes and the receive pipeline use.
 */
import { WebhookError } from './errors.js';
import type { HeadersInput } from './signing/scheme.js';

/**
 * Returns the header's value, or `undefined` when absent. Repeated headers in a Node record are
 * joined with `, ` as Fetch does, so every caller sees one string.
 */
export function getHeader(headers: HeadersInput, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const record = headers as { readonly [name: string]: string | readonly string[] | undefined };
  const lower = name.toLowerCase();
  let value = record[lower];
  if (value === undefined) {
    // Plain objects written by hand may keep the original casing.
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() === lower) {
        value = record[key];
        break;
      }
    }
  }
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}

/** `malformed_header` for `header` (lower-case). */
export function malformedHeader(header: string, message: string): WebhookError {
  return new WebhookError('malformed_header', message, { details: { header } });
}

/**
 * Reads one header (`name` lower-case) from a Fetch `Headers` (or anything with `get`) or a plain
 * record. Unlike `getHeader`, it never trusts the value's type: verification must fail with
 * `WebhookError` whatever a framework or an attacker put there.
 */
export function readHeader(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') {
    throw malformedHeader(name, 'Request headers must be a Headers object or a record of header values');
  }
  const getter = (headers as { get?: unknown }).get;
  if (typeof getter === 'function') {
    const value: unknown = getter.call(headers, name);
    if (value === null || value === undefined) return undefined;
    if (typeof value !== 'string') throw malformedHeader(name, `Header ${name} is not a string`);
    return value;
  }
  const record = headers as Record<string, unknown>;
  let value: unknown = Object.hasOwn(record, name) ? record[name] : undefined;
  if (value === undefined) {
    for (const key of Object.keys(record)) {
      if (key.length === name.length && key.toLowerCase() === name) {
        value = record[key];
        break;
      }
    }
  }
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value.join(', ');
  throw malformedHeader(name, `Header ${name} is not a string`);
}
