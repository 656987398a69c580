/**
 * GitHub: `X-Hub-Signature-256: sha256=<hex>` = HMAC-SHA256 of the raw body with the webhook secret.
 * The legacy `X-Hub-Signature: sha1=<hex>` is accepted only with `legacySha1: true` (and only when the
 * SHA-256 header is absent, so a request cannot downgrade itself). No timestamp: dedupe on
 * `X-GitHub-Delivery`, which GitHub keeps on redeliveries.
 */
import { decodeCanonicalHex, encodeHex } from '../signing/encoding.js';
import type { HeadersInput, SignatureScheme } from '../signing/scheme.js';
import { githubWindow } from '../stores/retry-windows.js';
import { anyKeyMatches, type MacList, macsFor, type PresetCrypto, settle, settleAll } from './crypto.js';
import { checkPresetOptions } from './preset-keys.js';
import {
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
import type { PresetSchemeOptions, ProviderDescriptor } from './types.js';

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

export function githubScheme(options: PresetSchemeOptions, crypto: PresetCrypto): SignatureScheme {
  checkPresetOptions('github', options);
  const keys = secretKeys(options.secret);
  const legacy = options.legacySha1 === true;
  const sha256 = macsFor(crypto, 'sha256', keys);
  const sha1 = legacy ? macsFor(crypto, 'sha1', keys) : undefined;
  const check = (macs: MacList, header: string, given: Uint8Array, body: string | Uint8Array, id?: string) =>
    settle(anyKeyMatches(crypto, macs, [given], body), (matched) => {
      if (!matched) throw invalidSignature(header);
      return delivered(id);
    });
  return guardVerify({
    name: 'github',
    sign(input) {
      const body = bodyInput(input.body);
      // GitHub sends one signature per header; during a rotation it signs with the new secret.
      const digests = sha1 === undefined ? [sha256[0](body)] : [sha256[0](body), sha1[0](body)];
      return settleAll(digests, ([digest256, digest1]) => {
        const headers: Record<string, string> = {
          [SHA256_HEADER]: `sha256=${encodeHex(digest256 as Uint8Array)}`,
          [DELIVERY_HEADER]: input.id,
        };
        if (digest1 !== undefined) headers[SHA1_HEADER] = `sha1=${encodeHex(digest1)}`;
        return headers;
      });
    },
    verify(input) {
      const id = deliveryId(input.headers);
      const body = bodyInput(input.body);
      if (
        sha1 !== undefined &&
        !hasHeader(input.headers, SHA256_HEADER) &&
        hasHeader(input.headers, SHA1_HEADER)
      ) {
        const given = parseSignature(requireHeader(input.headers, SHA1_HEADER), SHA1_HEADER, 'sha1');
        return check(sha1, SHA1_HEADER, given, body, id);
      }
      const given = parseSignature(requireHeader(input.headers, SHA256_HEADER), SHA256_HEADER, 'sha256');
      return check(sha256, SHA256_HEADER, given, body, id);
    },
  });
}

export const github: ProviderDescriptor<'github'> = {
  name: 'github',
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
  dedupeTtlMs: githubWindow,
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
