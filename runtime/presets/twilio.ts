/**
 * Twilio: `X-Twilio-Signature` = base64 HMAC (SHA-1 with the Auth Token; SHA-256 with a SharedKey,
 * announced by `X-Twilio-Webhooks-Signature-Settings: key=…,algorithm=HMAC_SHA256`) over the full URL
 * Twilio called followed by every POST parameter as `name + value`, names sorted, a repeated name's
 * distinct values sorted. JSON bodies are covered through the URL's `bodySHA256` query parameter
 * (hex SHA-256 of the body). Like Twilio's SDK, the URL is tried as received with and without the
 * scheme's default port, then in its WHATWG-normalised and legacy-querystring spellings.
 */
import { toBytes } from '../bytes.js';
import { WebhookError } from '../errors.js';
import { decodeBase64, decodeHex, encodeBase64 } from '../signing/encoding.js';
import type { HeadersInput, RawBody, SignatureScheme, VerifiedDelivery } from '../signing/scheme.js';
import { twilioWindow } from '../stores/retry-windows.js';
import { anyKeyMatches, type MaybePromise, macsFor, type PresetCrypto, settle } from './crypto.js';
import { checkPresetOptions } from './preset-keys.js';
import {
  guardVerify,
  headerValue,
  invalidSignature,
  isFormBody,
  malformed,
  parseForm,
  parseJson,
  requireHeader,
  secretKeys,
  sha256Hex,
  signatureKey,
  stringField,
} from './support.js';
import type { PresetSchemeOptions, ProviderDescriptor } from './types.js';

const SIGNATURE_HEADER = 'X-Twilio-Signature';
const SETTINGS_HEADER = 'X-Twilio-Webhooks-Signature-Settings';
const IDEMPOTENCY_HEADER = 'I-Twilio-Idempotency-Token';
const BODY_HASH_PARAM = 'bodySHA256';

type Algorithm = 'sha1' | 'sha256';
type Params = Readonly<Record<string, string | readonly string[]>>;

/** The string Twilio signs: the URL, then `name + value` for each parameter in sorted order. */
export function twilioSigningString(url: string, params: Params): string {
  let data = url;
  for (const name of Object.keys(params).sort()) {
    const value = params[name];
    if (value === undefined) continue;
    if (typeof value === 'string') data += name + value;
    else for (const one of [...new Set(value)].sort()) data += name + one;
  }
  return data;
}

/** Appends `bodySHA256=<hex sha256 of body>` to a URL, as Twilio does for JSON webhook bodies. */
export function withTwilioBodyHash(url: string, body: RawBody): string {
  const hash = sha256Hex(toBytes(body));
  const hashAt = url.indexOf('#');
  const base = hashAt === -1 ? url : url.slice(0, hashAt);
  const fragment = hashAt === -1 ? '' : url.slice(hashAt);
  const separator = base.includes('?') ? (base.endsWith('?') || base.endsWith('&') ? '' : '&') : '?';
  return `${base}${separator}${BODY_HASH_PARAM}=${hash}${fragment}`;
}

interface UrlParts {
  readonly prefix: string; // scheme:// plus user info
  readonly scheme: string;
  readonly host: string;
  readonly port: string; // ':8080' or ''
  readonly rest: string;
}

// Split without normalising, so the path and query keep the characters Twilio signed.
function splitUrl(url: string): UrlParts | undefined {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(url);
  if (match === null) return undefined;
  const scheme = match[1] ?? '';
  const authority = match[2] ?? '';
  const at = authority.lastIndexOf('@');
  const hostPort = authority.slice(at + 1);
  // In `[::1]:8080` only a colon after the closing bracket starts the port.
  const colon = hostPort.indexOf(':', hostPort.lastIndexOf(']') + 1);
  return {
    prefix: scheme + authority.slice(0, at + 1),
    scheme: scheme.toLowerCase(),
    host: colon === -1 ? hostPort : hostPort.slice(0, colon),
    port: colon === -1 ? '' : hostPort.slice(colon),
    rest: url.slice(match[0].length),
  };
}

function withoutPort(url: string): string {
  const parts = splitUrl(url);
  return parts === undefined ? url : parts.prefix + parts.host + parts.rest;
}

function withDefaultPort(url: string): string {
  const parts = splitUrl(url);
  if (parts === undefined || parts.port !== '') return url;
  const port = parts.scheme === 'https://' ? ':443' : ':80';
  return parts.prefix + parts.host + port + parts.rest;
}

function withLegacyQuery(url: string, legacyQuery: (query: string) => string): string {
  const q = url.indexOf('?');
  if (q === -1 || q === url.length - 1) return url;
  return `${url.slice(0, q)}?${legacyQuery(url.slice(q + 1))}`;
}

/**
 * Every spelling of the URL Twilio may have signed, in the order its SDK tries them. Lazy: the
 * normalised spellings are only computed when the URL as received did not match.
 */
function* candidateUrls(url: string, legacyQuery: (query: string) => string): Generator<string> {
  const seen = new Set<string>();
  const fresh = (candidate: string): boolean => {
    if (seen.has(candidate)) return false;
    seen.add(candidate);
    return true;
  };
  for (const candidate of [withoutPort(url), withDefaultPort(url)]) if (fresh(candidate)) yield candidate;
  let normalised: string;
  try {
    normalised = new URL(url).toString();
  } catch (cause) {
    throw new WebhookError('invalid_config', `twilio: "${url}" is not an absolute URL`, { cause });
  }
  const plain = withoutPort(normalised);
  const ported = withDefaultPort(normalised);
  const legacy = [withLegacyQuery(plain, legacyQuery), withLegacyQuery(ported, legacyQuery)];
  for (const candidate of [plain, ported, ...legacy]) {
    if (fresh(candidate)) yield candidate;
  }
}

function algorithmFromSettings(headers: HeadersInput): Algorithm {
  const settings = headerValue(headers, SETTINGS_HEADER);
  if (settings === undefined) return 'sha1';
  for (const part of settings.split(',')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== 'algorithm') continue;
    const name = part
      .slice(eq + 1)
      .trim()
      .toUpperCase();
    if (name === '' || name === 'HMAC_SHA1') return 'sha1';
    if (name === 'HMAC_SHA256') return 'sha256';
    throw malformed(SETTINGS_HEADER, `names an unsupported algorithm (${name})`);
  }
  return 'sha1';
}

function bodyHashParam(url: string): string | undefined {
  const q = url.indexOf('?');
  if (q === -1) return undefined;
  const value = new URLSearchParams(url.slice(q + 1).split('#')[0]).get(BODY_HASH_PARAM);
  return value ?? undefined;
}

function signedParams(url: string, body: RawBody): Params {
  // With bodySHA256 the body is covered by its hash in the URL, not as parameters.
  if (bodyHashParam(url) !== undefined) return {};
  return toBytes(body).length === 0 ? {} : parseForm(body);
}

export function twilioScheme(options: PresetSchemeOptions, crypto: PresetCrypto): SignatureScheme {
  checkPresetOptions('twilio', options);
  const { legacyQuery } = crypto;
  if (legacyQuery === undefined) {
    throw new WebhookError(
      'invalid_config',
      'twilio: this preset needs Node (node:querystring spells one of the URLs Twilio may have signed); use it from @gen-webhooks/runtime on Node',
    );
  }
  const keys = secretKeys(options.secret);
  const macs = { sha1: macsFor(crypto, 'sha1', keys), sha256: macsFor(crypto, 'sha256', keys) };
  const configured = options.algorithm;
  if (configured !== undefined && configured !== 'sha1' && configured !== 'sha256') {
    throw new WebhookError('invalid_config', `twilio: algorithm must be sha1 or sha256`);
  }
  const publicUrl = (requestUrl: string | undefined): string => {
    const { publicUrl: option } = options;
    let url: string | undefined;
    try {
      url = typeof option === 'function' ? option(requestUrl) : (option ?? requestUrl);
    } catch (cause) {
      if (cause instanceof WebhookError) throw cause;
      throw new WebhookError('invalid_config', 'twilio: the publicUrl option threw', { cause });
    }
    if (url === undefined || url === '') {
      throw new WebhookError(
        'invalid_config',
        'twilio: the public URL Twilio called is needed to verify (pass VerifyInput.url or the publicUrl option)',
      );
    }
    return url;
  };
  return guardVerify({
    name: 'twilio',
    sign(input) {
      const url = publicUrl(input.url);
      const algorithm = configured ?? 'sha1';
      const mac = macs[algorithm][0](twilioSigningString(url, signedParams(url, input.body)));
      return settle(mac, (signature) => {
        const headers: Record<string, string> = {
          [SIGNATURE_HEADER]: encodeBase64(signature),
          [IDEMPOTENCY_HEADER]: input.id,
        };
        if (algorithm === 'sha256') headers[SETTINGS_HEADER] = 'algorithm=HMAC_SHA256';
        return headers;
      });
    },
    verify(input) {
      const url = publicUrl(input.url);
      const value = requireHeader(input.headers, SIGNATURE_HEADER);
      const algorithm = configured ?? algorithmFromSettings(input.headers);
      const given = decodeBase64(value);
      if (given === undefined || given.length !== (algorithm === 'sha1' ? 20 : 32)) {
        throw malformed(SIGNATURE_HEADER, `must be a base64 HMAC-${algorithm.toUpperCase()} digest`);
      }
      const params = signedParams(url, input.body);
      const candidates = candidateUrls(url, legacyQuery);
      // The spellings in order, each computed only when the previous one did not match.
      const tryNext = (): MaybePromise<boolean> => {
        const next = candidates.next();
        if (next.done === true) return false;
        const matching = anyKeyMatches(
          crypto,
          macs[algorithm],
          [given],
          twilioSigningString(next.value, params),
        );
        return settle(matching, (matched) => matched || tryNext()) as MaybePromise<boolean>;
      };
      return settle(tryNext(), (matched) => {
        if (!matched) throw invalidSignature(SIGNATURE_HEADER);
        return checkBodyHash(url, given, input.headers, input.body);
      });
    },
  });

  /** A JSON body is covered by its hash in the signed URL: the body must match it. */
  function checkBodyHash(
    url: string,
    given: Uint8Array,
    headers: HeadersInput,
    body: RawBody,
  ): VerifiedDelivery {
    const expectedHash = bodyHashParam(url);
    if (expectedHash !== undefined) {
      const actual = decodeHex(sha256Hex(toBytes(body)));
      const claimed = decodeHex(expectedHash);
      if (actual === undefined || claimed === undefined || !crypto.equal(actual, claimed)) {
        throw new WebhookError('invalid_signature', 'The body does not match the signed bodySHA256', {
          details: { header: SIGNATURE_HEADER.toLowerCase(), parameter: BODY_HASH_PARAM },
        });
      }
    }
    // Without Twilio's (unsigned) token, the key is the MAC bytes: every URL spelling that verifies
    // names the same signed request, so none of them is a new event.
    return { id: headerValue(headers, IDEMPOTENCY_HEADER) ?? signatureKey('twilio', given) };
  }
}

export const twilio: ProviderDescriptor<'twilio'> = {
  name: 'twilio',
  signature: { kind: 'preset', preset: 'twilio' },
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'EventType' },
  match: (event) => ({ body: event }),
  parseBody: (body, headers) =>
    isFormBody(headers) || !looksLikeJson(body) ? parseForm(body) : parseJson(body),
  eventId(headers, _body, verified) {
    const token = headerValue(headers, IDEMPOTENCY_HEADER);
    if (token !== undefined) return token;
    if (verified?.id !== undefined) return verified.id;
    const signature = headerValue(headers, SIGNATURE_HEADER);
    const bytes = signature === undefined ? undefined : decodeBase64(signature);
    return bytes === undefined ? undefined : signatureKey('twilio', bytes);
  },
  eventType(_headers, body) {
    for (const name of ['EventType', 'CallStatus', 'MessageStatus', 'SmsStatus']) {
      const value = stringField(body, name);
      if (value !== undefined) return value;
    }
    return stringField(body, 'type');
  },
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: twilioWindow,
  declared: {
    idSigned: false,
    timestampSigned: false,
    handshakes: [],
    residualRisk:
      'I-Twilio-Idempotency-Token is unsigned and nothing is dated: a captured delivery replays under a fresh token as a new event, at any time.',
  },
  defaultMode: 'inline',
  handshake: () => undefined,
};

function looksLikeJson(body: RawBody): boolean {
  const bytes = toBytes(body);
  for (const byte of bytes) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x7b || byte === 0x5b; // { or [
  }
  return false;
}
