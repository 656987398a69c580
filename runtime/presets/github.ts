/**
 * GitHub: `X-Hub-Signature-256: sha256=<hex>` = HMAC-SHA256 of the raw body with the webhook secret.
 * The legacy `X-Hub-Signature: sha1=<hex>` is accepted only with `legacySha1: true` (and only when the
 * SHA-256 header is absent, so a request cannot downgrade itself). No timestamp: dedupe on
 * `X-GitHub-Delivery`, which GitHub keeps on redeliveries.
 */
import { decodeCanonicalHex, encodeHex } from '../signing/encoding.js';
import { hmac } from '../signing/hmac.js';
import type { HeadersInput, SignatureScheme } from '../signing/scheme.js';
import { RETRY_WINDOWS } from '../stores/retry-windows.js';
import {
  anyKeyMatches,
  bodyInput,
  delivered,
  guardVerify,
  hasHeader,
  headerValue,
  invalidSignature,
  malformed,
  parseJson,
  requireHeader,
  secretKeys,
  stringField,
} from './support.js';
import type { PresetSchemeOptions, ProviderPreset } from './types.js';

const SHA256_HEADER = 'X-Hub-Signature-256';
const SHA1_HEADER = 'X-Hub-Signature';
const DELIVERY_HEADER = 'X-GitHub-Delivery';
const EVENT_HEADER = 'X-GitHub-Event';

function parseSignature(value: string, header: string, algorithm: 'sha1' | 'sha256'): Uint8Array {
  const prefix = `${algorithm}=`;
  if (!value.startsWith(prefix)) throw malformed(header, `must start with ${prefix}`);
  // Lower-case hex only: @octokit/webhooks-methods compares the header text with `sha256=<hex>`.
  const bytes = decodeCanonicalHex(value.slice(prefix.length));
  if (bytes === undefined || bytes.length !== (algorithm === 'sha1' ? 20 : 32)) {
    throw malformed(header, `must be ${prefix}<hex digest>`);
  }
  return bytes;
}

function deliveryId(headers: HeadersInput): string | undefined {
  return headerValue(headers, DELIVERY_HEADER);
}

export function githubScheme(options: PresetSchemeOptions): SignatureScheme {
  const keys = secretKeys(options.secret);
  const legacy = options.legacySha1 === true;
  return guardVerify({
    name: 'github',
    sign(input) {
      const body = bodyInput(input.body);
      // GitHub sends one signature per header; during a rotation it signs with the new secret.
      const [key] = keys;
      const headers: Record<string, string> = {
        [SHA256_HEADER]: `sha256=${encodeHex(hmac('sha256', key, body))}`,
        [DELIVERY_HEADER]: input.id,
      };
      if (legacy) headers[SHA1_HEADER] = `sha1=${encodeHex(hmac('sha1', key, body))}`;
      return headers;
    },
    verify(input) {
      const id = deliveryId(input.headers);
      const body = bodyInput(input.body);
      if (legacy && !hasHeader(input.headers, SHA256_HEADER) && hasHeader(input.headers, SHA1_HEADER)) {
        const given = parseSignature(requireHeader(input.headers, SHA1_HEADER), SHA1_HEADER, 'sha1');
        if (!anyKeyMatches('sha1', keys, [given], body)) throw invalidSignature(SHA1_HEADER);
        return delivered(id);
      }
      const given = parseSignature(requireHeader(input.headers, SHA256_HEADER), SHA256_HEADER, 'sha256');
      if (!anyKeyMatches('sha256', keys, [given], body)) throw invalidSignature(SHA256_HEADER);
      return delivered(id);
    },
  });
}

export const github: ProviderPreset<'github'> = {
  name: 'github',
  scheme: githubScheme,
  signature: { kind: 'preset', preset: 'github' },
  envelope: { kind: 'bare' },
  selector: { kind: 'header', header: EVENT_HEADER, bodyField: 'action' },
  // `issues.opened` → X-GitHub-Event `issues` + body action `opened`; `push` → header only.
  match(event) {
    const dot = event.indexOf('.');
    return dot === -1 ? { header: event } : { header: event.slice(0, dot), body: event.slice(dot + 1) };
  },
  parseBody: (body) => parseJson(body),
  eventId: (headers, _body, verified) => verified?.id ?? deliveryId(headers),
  eventType(headers, body) {
    const event = headerValue(headers, EVENT_HEADER);
    if (event === undefined) return undefined;
    const action = stringField(body, 'action');
    return action === undefined ? event : `${event}.${action}`;
  },
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: RETRY_WINDOWS.github,
  declared: {
    idSigned: false,
    timestampSigned: false,
    handshakes: [],
    residualRisk:
      'X-GitHub-Delivery and X-GitHub-Event are unsigned and nothing is dated: a captured delivery replays under a fresh delivery id as a new event, at any time.',
  },
  defaultMode: 'inline',
  handshake: () => undefined,
};
