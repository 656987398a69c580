/**
 * The platform-neutral half of the simple HMAC scheme (`SignatureConfig` kind `hmac`), shared by the
 * node:crypto path (`hmac-scheme.ts`) and the Web Crypto path (`web.ts`). No `node:*` imports.
 *
 * Exports:
 * - `HmacConfig` — the `hmac` member of `SignatureConfig`
 * - `compileHmacConfig(config)` → `CompiledHmac` (validates once: `invalid_config` on nonsense);
 *   `checkHmacConfig(config)` and `compileCheckedHmac(config)` are its two halves
 * - `hmacSignedContent(config)` — the `signedContent` template in force (the configured one or the default)
 * - `unsignedIdHeader(config)` — the declared `idHeader` when the signature does not cover it, else `undefined`
 * - `signedParts(compiled, id, timestamp)` → `[before, after]`: the text around the body bytes
 * - `readHmacRequest(compiled, headers)` → signed id/timestamp and candidate signatures of one request
 * - `formatSignatures(compiled, digests)` → the header value (several digests joined by `, `)
 * - `textSecretBytes(secret)` — a shared-password secret as bytes: strings are their UTF-8 bytes
 */
import type { SignatureConfig } from '../contract.js';
import { WebhookError } from '../errors.js';
import { parseUnixSeconds } from '../timestamp.js';
import { decodeBase64, decodeCanonicalHex, encodeBase64, encodeHex, utf8 } from './encoding.js';
import type { Secret } from './scheme.js';
import { readHeader } from './standard-webhooks-core.js';

export type HmacConfig = Extract<SignatureConfig, { readonly kind: 'hmac' }>;

export type HmacAlgorithm = 'sha256' | 'sha1' | 'sha512';

const DIGEST_BYTES = { sha1: 20, sha256: 32, sha512: 64 } as const;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_SIGNATURES = 16;

export interface CompiledHmac {
  readonly algorithm: HmacConfig['algorithm'];
  readonly encoding: HmacConfig['encoding'];
  readonly digestLength: number;
  /** Lower-case header names. */
  readonly header: string;
  readonly timestampHeader: string | undefined;
  readonly idHeader: string | undefined;
  readonly prefix: string;
  readonly template: { readonly before: string; readonly after: string };
  readonly usesId: boolean;
  /** Header names as configured, for the headers `sign` writes. */
  readonly labels: { readonly header: string; readonly timestampHeader?: string; readonly idHeader?: string };
}

function configError(message: string): WebhookError {
  return new WebhookError('invalid_config', `hmac signature config: ${message}`);
}

function headerName(value: unknown, field: string): void {
  if (typeof value !== 'string' || !HEADER_NAME.test(value))
    throw configError(`${field} must be a header name`);
}

/**
 * The template in force. A declared `idHeader` is signed by default (`{id}.{timestamp}.{body}`, or
 * `{id}.{body}` without a timestamp header): the receiver dedupes on the id, so an unsigned one would let
 * a captured delivery replay under fresh ids.
 */
export function hmacSignedContent(config: HmacConfig): string {
  if (config.signedContent !== undefined) return config.signedContent;
  const id = config.idHeader === undefined ? '' : '{id}.';
  return config.timestampHeader === undefined ? `${id}{body}` : `${id}{timestamp}.{body}`;
}

/**
 * The `idHeader` of an `hmac` config whose `signedContent` leaves `{id}` out: nothing authenticates it,
 * so a receiver may not dedupe on it (it takes the signed envelope id and refuses a header that disagrees).
 */
export function unsignedIdHeader(config: SignatureConfig): string | undefined {
  if (config.kind !== 'hmac' || config.idHeader === undefined) return undefined;
  return hmacSignedContent(config).includes('{id}') ? undefined : config.idHeader;
}

/** `invalid_config` unless `config` is a usable `hmac` signature (what `compileHmacConfig` checks). */
export function checkHmacConfig(config: HmacConfig): void {
  if (!Object.hasOwn(DIGEST_BYTES, config.algorithm)) {
    throw configError('algorithm must be sha256, sha1 or sha512');
  }
  if (config.encoding !== 'hex' && config.encoding !== 'base64')
    throw configError('encoding must be hex or base64');
  headerName(config.header, 'header');
  if (config.timestampHeader !== undefined) headerName(config.timestampHeader, 'timestampHeader');
  if (config.idHeader !== undefined) headerName(config.idHeader, 'idHeader');
  const prefix = config.prefix ?? '';
  if (typeof prefix !== 'string' || prefix.includes(','))
    throw configError('prefix must be text without commas');
  const placeholders: readonly string[] = hmacSignedContent(config).match(/\{[^{}]*\}/g) ?? [];
  for (const placeholder of placeholders) {
    if (placeholder !== '{body}' && placeholder !== '{timestamp}' && placeholder !== '{id}') {
      throw configError(`unknown placeholder ${placeholder} in signedContent`);
    }
  }
  const bodyCount = placeholders.filter((p) => p === '{body}').length;
  if (bodyCount !== 1) throw configError('signedContent must contain {body} exactly once');
  if (placeholders.includes('{timestamp}') && config.timestampHeader === undefined) {
    throw configError('signedContent uses {timestamp} but timestampHeader is not set');
  }
  if (placeholders.includes('{id}') && config.idHeader === undefined) {
    throw configError('signedContent uses {id} but idHeader is not set');
  }
}

/**
 * `config` compiled without checking it: for a config already checked (`checkHmacConfig`; the
 * generator checks a generated contract's, so its Web receiver carries no checks).
 */
export function compileCheckedHmac(config: HmacConfig): CompiledHmac {
  const signedContent = hmacSignedContent(config);
  const at = signedContent.indexOf('{body}');
  return {
    algorithm: config.algorithm,
    encoding: config.encoding,
    digestLength: DIGEST_BYTES[config.algorithm],
    header: config.header.toLowerCase(),
    timestampHeader: config.timestampHeader?.toLowerCase(),
    idHeader: config.idHeader?.toLowerCase(),
    prefix: config.prefix ?? '',
    template: { before: signedContent.slice(0, at), after: signedContent.slice(at + '{body}'.length) },
    usesId: signedContent.includes('{id}'),
    // The header names as configured: the config's own.
    labels: config,
  };
}

/** `checkHmacConfig`, then `compileCheckedHmac`. */
export function compileHmacConfig(config: HmacConfig): CompiledHmac {
  checkHmacConfig(config);
  return compileCheckedHmac(config);
}

/** The headers `sign` writes, given the signature value. */
export function signedHeaders(
  compiled: CompiledHmac,
  signature: string,
  id: string,
  timestamp: number,
): Record<string, string> {
  const headers: Record<string, string> = { [compiled.labels.header]: signature };
  if (compiled.labels.timestampHeader !== undefined)
    headers[compiled.labels.timestampHeader] = String(timestamp);
  if (compiled.labels.idHeader !== undefined) headers[compiled.labels.idHeader] = id;
  return headers;
}

function fill(text: string, id: string, timestamp: string): string {
  return text.replaceAll('{id}', id).replaceAll('{timestamp}', timestamp);
}

export function signedParts(
  compiled: CompiledHmac,
  id: string,
  timestamp: string,
): readonly [string, string] {
  return [fill(compiled.template.before, id, timestamp), fill(compiled.template.after, id, timestamp)];
}

export interface HmacRequest {
  /** The id header, only when `signedContent` covers it (an unsigned one is never reported). */
  readonly id: string | undefined;
  readonly timestamp: number | undefined;
  /** The timestamp header exactly as received ('' when the scheme has none). */
  readonly timestampText: string;
  readonly signatures: readonly Uint8Array[];
}

export function readHmacRequest(compiled: CompiledHmac, headers: unknown): HmacRequest {
  const value = readHeader(headers, compiled.header);
  if (value === undefined || value === '') {
    throw new WebhookError('missing_header', `Missing ${compiled.header} header`, {
      details: { header: compiled.header },
    });
  }
  let id: string | undefined;
  if (compiled.idHeader !== undefined && compiled.usesId) {
    id = readHeader(headers, compiled.idHeader);
    if (id === undefined || id === '') {
      throw new WebhookError('missing_header', `Missing ${compiled.idHeader} header`, {
        details: { header: compiled.idHeader },
      });
    }
  }
  let timestamp: number | undefined;
  let timestampText = '';
  if (compiled.timestampHeader !== undefined) {
    const text = readHeader(headers, compiled.timestampHeader);
    timestamp = parseUnixSeconds(text === '' ? undefined : text, compiled.timestampHeader);
    timestampText = String(timestamp);
  }
  const signatures: Uint8Array[] = [];
  // One spelling per signature (the prefix as configured, lower-case hex or canonical base64), as the
  // reference verifiers compare text: a re-cased copy of a captured request is not a second signature.
  const prefix = compiled.prefix;
  for (const raw of value.split(',').slice(0, MAX_SIGNATURES)) {
    const token = raw.trim();
    if (token.length <= prefix.length || !token.startsWith(prefix)) continue;
    const text = token.slice(prefix.length);
    const bytes = compiled.encoding === 'hex' ? decodeCanonicalHex(text) : decodeBase64(text);
    if (bytes !== undefined && bytes.length === compiled.digestLength) signatures.push(bytes);
  }
  if (signatures.length === 0) {
    throw new WebhookError(
      'malformed_header',
      `${compiled.header} must be ${compiled.prefix}<${compiled.encoding} ${compiled.algorithm}>`,
      { details: { header: compiled.header } },
    );
  }
  return { id, timestamp, timestampText, signatures };
}

export function formatSignatures(compiled: CompiledHmac, digests: readonly Uint8Array[]): string {
  return digests
    .map(
      (digest) => compiled.prefix + (compiled.encoding === 'hex' ? encodeHex(digest) : encodeBase64(digest)),
    )
    .join(', ');
}

/** Secrets of "shared password" schemes (simple HMAC, GitHub, Shopify): text is used as its UTF-8 bytes. */
export function textSecretBytes(secret: Secret): Uint8Array {
  if (secret instanceof Uint8Array) {
    if (secret.length === 0) throw new WebhookError('invalid_secret', 'Secret is empty');
    return secret;
  }
  if (typeof secret !== 'string' || secret === '') {
    throw new WebhookError('invalid_secret', 'Secret must be a non-empty string or bytes');
  }
  return utf8(secret);
}
