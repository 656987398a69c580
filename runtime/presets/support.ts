/**
 * Small helpers the provider presets share: secrets, header and body access, responses. Crypto comes
 * from the runtime's `PresetCrypto` (`crypto.ts`); presets never import the signing barrel or
 * `resolve.ts` (which imports the presets). No `node:*` imports.
 */
import { toBytes, toText } from '../bytes.js';
import { WebhookError } from '../errors.js';
import { textSecretBytes } from '../signing/hmac-scheme-core.js';
import type { HeadersInput, RawBody, SchemeOptions, SignatureScheme } from '../signing/scheme.js';
import { sha256Hex } from '../signing/sha256.js';
import { asVerificationError, readHeader, secretList } from '../signing/standard-webhooks-core.js';
import type { HandshakeResponse } from './types.js';

// The presets' body parser is the receivers' (bytes.ts); presets import it from here with the rest.
export { parseJson } from '../bytes.js';

export { sha256Hex };

export type KeyList = readonly [Uint8Array, ...Uint8Array[]];

/**
 * Secrets as key bytes, validated once at construction. Provider secrets are the UTF-8 bytes of the
 * string shown in the provider's dashboard (Stripe's `whsec_…` included: Stripe does not decode it).
 */
export function secretKeys(secret: SchemeOptions['secret'] | undefined): KeyList {
  const [first, ...rest] = secretList(secret).map(textSecretBytes);
  if (first === undefined) throw new WebhookError('invalid_secret', 'At least one secret is required');
  return [first, ...rest];
}

/** The body as a MAC takes it: strings are hashed as UTF-8 without an intermediate copy on Node. */
export function bodyInput(body: RawBody): string | Uint8Array {
  return typeof body === 'string' ? body : toBytes(body);
}

function withStatus(status: number | undefined): { status?: number } {
  return status === undefined ? {} : { status };
}

/**
 * A header's trimmed value, `undefined` when absent or blank. Values that are not strings (whatever a
 * framework or a client put there) are `malformed_header`, never a TypeError.
 */
export function headerValue(headers: HeadersInput, name: string, status?: number): string | undefined {
  try {
    const value = readHeader(headers, name.toLowerCase())?.trim();
    return value === undefined || value === '' ? undefined : value;
  } catch (error) {
    if (error instanceof WebhookError && status !== undefined) {
      throw new WebhookError(error.code, error.message, { status, details: error.details, cause: error });
    }
    throw error;
  }
}

/** True when the header is present at all, even blank (presence decides which header is authoritative). */
export function hasHeader(headers: HeadersInput, name: string): boolean {
  return readHeader(headers, name.toLowerCase()) !== undefined;
}

/** A header's value; absent or blank → `missing_header` (with `status` when a provider demands one). */
export function requireHeader(headers: HeadersInput, name: string, status?: number): string {
  const value = headerValue(headers, name, status);
  if (value === undefined) {
    throw new WebhookError('missing_header', `Missing ${name} header`, {
      details: { header: name.toLowerCase() },
      ...withStatus(status),
    });
  }
  return value;
}

export function malformed(name: string, why: string, status?: number): WebhookError {
  return new WebhookError('malformed_header', `${name} ${why}`, {
    details: { header: name.toLowerCase() },
    ...withStatus(status),
  });
}

export function invalidSignature(name: string, status?: number): WebhookError {
  return new WebhookError('invalid_signature', `${name} does not match the payload and secret`, {
    details: { header: name.toLowerCase() },
    ...withStatus(status),
  });
}

/** Form fields (`application/x-www-form-urlencoded`); a repeated name becomes an array, in body order. */
export function parseForm(body: RawBody): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = Object.create(null);
  for (const [key, value] of new URLSearchParams(toText(body))) {
    const previous = fields[key];
    if (previous === undefined) fields[key] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else fields[key] = [previous, value];
  }
  return fields;
}

export function isFormBody(headers: HeadersInput): boolean {
  const type = headerValue(headers, 'content-type');
  return type?.toLowerCase().startsWith('application/x-www-form-urlencoded') === true;
}

/** Value at a dot path of a parsed body; `undefined` when any step is missing or not an object. */
export function field(body: unknown, path: string): unknown {
  let value: unknown = body;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    if (!Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

export function stringField(body: unknown, path: string): string | undefined {
  const value = field(body, path);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function jsonResponse(status: number, value: unknown): HandshakeResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) };
}

export function delivered(id: string | undefined, timestamp?: number): { id?: string; timestamp?: number } {
  return { ...(id === undefined ? {} : { id }), ...(timestamp === undefined ? {} : { timestamp }) };
}

/**
 * Only `WebhookError` may leave a verifier: whatever else is thrown while reading a request (a header
 * getter or proxy that throws, a value of a type nobody expected) becomes `invalid_signature` (401),
 * never a bare `Error` a framework answers with 500.
 */
export function guardVerify(scheme: SignatureScheme): SignatureScheme {
  const wrap = asVerificationError;
  return {
    name: scheme.name,
    sign: (input) => scheme.sign(input),
    verify(input) {
      try {
        const result = scheme.verify(input);
        if (typeof (result as { then?: unknown }).then !== 'function') return result;
        return Promise.resolve(result).catch((error: unknown) => {
          throw wrap(error);
        });
      } catch (error) {
        throw wrap(error);
      }
    },
  };
}

/**
 * A fallback dedupe key from the bytes a signature decodes to, never from header text: every spelling
 * that verifies (case, spaces, padding) names the same signed content, so it is the same event.
 */
export function signatureKey(label: string, signature: Uint8Array): string {
  return `${label}:${sha256Hex(signature)}`;
}
