/**
 * Shopify: `X-Shopify-Hmac-Sha256` = base64 HMAC-SHA256 of the raw body with the app's client secret.
 * No signed timestamp; `X-Shopify-Triggered-At` (ISO-8601, unsigned) is kept on retries, so staleness
 * is an opt-in check (`maxAge`). Dedupe key per Shopify's "ignore duplicate webhooks" guide:
 * `X-Shopify-Event-Id` (same value on every webhook for one event), scoped by topic so one shop action
 * delivered under two topics is not collapsed; `X-Shopify-Webhook-Id` when the event id is absent.
 */
import { WebhookError } from '../errors.js';
import { decodeBase64, encodeBase64 } from '../signing/encoding.js';
import type { HeadersInput, SignatureScheme, VerifiedDelivery } from '../signing/scheme.js';
import { shopifyWindow } from '../stores/retry-windows.js';
import { anyKeyMatches, macsFor, type PresetCrypto, settle } from './crypto.js';
import { checkPresetOptions } from './preset-keys.js';
import {
  bodyInput,
  delivered,
  guardVerify,
  headerValue,
  invalidSignature,
  malformed,
  parseJson,
  requireHeader,
  secretKeys,
} from './support.js';
import type { PresetSchemeOptions, ProviderDescriptor } from './types.js';

const HMAC_HEADER = 'X-Shopify-Hmac-Sha256';
const WEBHOOK_ID_HEADER = 'X-Shopify-Webhook-Id';
const EVENT_ID_HEADER = 'X-Shopify-Event-Id';
const TOPIC_HEADER = 'X-Shopify-Topic';
const TRIGGERED_AT_HEADER = 'X-Shopify-Triggered-At';
// ISO-8601 with any number of fraction digits (Shopify sends nanoseconds) and a zone.
const ISO_INSTANT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/;

function parseTriggeredAt(value: string): number {
  const match = ISO_INSTANT.exec(value);
  const millis = match
    ? Date.parse(`${match[1]}.${(match[2] ?? '').padEnd(3, '0').slice(0, 3)}${match[3]}`)
    : Number.NaN;
  if (!Number.isFinite(millis)) throw malformed(TRIGGERED_AT_HEADER, 'must be an ISO-8601 timestamp');
  return millis;
}

function dedupeKey(headers: HeadersInput): string | undefined {
  const eventId = headerValue(headers, EVENT_ID_HEADER);
  if (eventId === undefined) return headerValue(headers, WEBHOOK_ID_HEADER);
  const topic = headerValue(headers, TOPIC_HEADER);
  return topic === undefined ? eventId : `${topic}:${eventId}`;
}

export function shopifyScheme(options: PresetSchemeOptions, crypto: PresetCrypto): SignatureScheme {
  checkPresetOptions('shopify', options);
  const macs = macsFor(crypto, 'sha256', secretKeys(options.secret));
  const { maxAge } = options;
  if (maxAge !== undefined && !(Number.isFinite(maxAge) && maxAge >= 0)) {
    throw new WebhookError('invalid_config', 'shopify: maxAge must be a non-negative number of seconds');
  }
  const now = options.now ?? Date.now;
  const scheme: SignatureScheme = {
    name: 'shopify',
    sign(input) {
      return settle(macs[0](bodyInput(input.body)), (digest) => ({
        [HMAC_HEADER]: encodeBase64(digest),
        [WEBHOOK_ID_HEADER]: input.id,
        [EVENT_ID_HEADER]: input.id,
        [TRIGGERED_AT_HEADER]: new Date(input.timestamp * 1000).toISOString(),
      }));
    },
    verify(input) {
      const value = requireHeader(input.headers, HMAC_HEADER);
      const given = decodeBase64(value);
      if (given === undefined || given.length !== 32) throw malformed(HMAC_HEADER, 'must be a base64 digest');
      return settle(anyKeyMatches(crypto, macs, [given], bodyInput(input.body)), (matched) => {
        if (!matched) throw invalidSignature(HMAC_HEADER);
        return fresh(input.headers);
      });
    },
  };
  return guardVerify(scheme);

  /** What a verified delivery yields: its dedupe id, after the optional `maxAge` check. */
  function fresh(headers: HeadersInput): VerifiedDelivery {
    const id = dedupeKey(headers);
    if (maxAge !== undefined) {
      const triggeredAt = parseTriggeredAt(requireHeader(headers, TRIGGERED_AT_HEADER));
      const age = (now() - triggeredAt) / 1000;
      if (age > maxAge) {
        throw new WebhookError('timestamp_too_old', `${TRIGGERED_AT_HEADER} is more than ${maxAge}s old`, {
          details: { header: TRIGGERED_AT_HEADER.toLowerCase(), age, maxAge },
        });
      }
    }
    return delivered(id);
  }
}

export const shopify: ProviderDescriptor<'shopify'> = {
  name: 'shopify',
  signature: { kind: 'preset', preset: 'shopify' },
  envelope: { kind: 'bare' },
  selector: { kind: 'header', header: TOPIC_HEADER },
  match: (event) => ({ header: event }),
  parseBody: (body) => parseJson(body),
  eventId: (headers, _body, verified) => verified?.id ?? dedupeKey(headers),
  eventType: (headers) => headerValue(headers, TOPIC_HEADER),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: shopifyWindow,
  declared: {
    idSigned: false,
    timestampSigned: false,
    handshakes: [],
    residualRisk:
      'X-Shopify-Event-Id, X-Shopify-Topic and X-Shopify-Triggered-At are unsigned: a captured delivery replays under a fresh event id as a new event, at any time.',
  },
  defaultMode: 'inline',
  handshake: () => undefined,
};
