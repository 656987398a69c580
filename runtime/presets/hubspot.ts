/**
 * HubSpot webhooks, signature v3 (https://developers.hubspot.com/docs/api/webhooks/validating-requests):
 * `X-HubSpot-Signature-v3` = base64 HMAC-SHA256 of `${method}${uri}${rawBody}${timestamp}` with the
 * app's client secret, where `timestamp` is `X-HubSpot-Request-Timestamp` (Unix ms; older than
 * 5 minutes is refused) and `uri` the full URL HubSpot called, with the characters the guide lists
 * URL-decoded. Webhooks are POSTs. The body is an array of up to 100 events: one is dispatched by its
 * `subscriptionType`, several as `batch`; the key is the `eventId` (several: their hash), which HubSpot
 * keeps on retries (only `attemptNumber` changes).
 */
import { encodeBase64 } from '../signing/encoding.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { hubspotWindow } from '../stores/retry-windows.js';
import { checkTimestampMs, checkTolerance } from '../timestamp.js';
import { checkPresetOptions } from './preset-keys.js';
import { field, invalidSignature, malformed, parseJson, requireHeader, stringField } from './support.js';
import type { PresetSchemeOptions, ProviderPreset } from './types.js';
import { hmacKeys } from './web-crypto.js';
import { base64Of, batchType, deliveryKey, guardAsync, publicUrlOf } from './web-support.js';

const SIGNATURE_HEADER = 'X-HubSpot-Signature-v3';
const TIMESTAMP_HEADER = 'X-HubSpot-Request-Timestamp';

/** The escapes HubSpot's guide decodes in the URI before signing (and no others). */
const DECODED: Readonly<Record<string, string>> = {
  '%3A': ':',
  '%2F': '/',
  '%3F': '?',
  '%40': '@',
  '%21': '!',
  '%24': '$',
  '%27': "'",
  '%28': '(',
  '%29': ')',
  '%2A': '*',
  '%2C': ',',
  '%3B': ';',
};

export function hubspotSignedUri(url: string): string {
  return url.replace(
    /%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi,
    (encoded) => DECODED[encoded.toUpperCase()] ?? encoded,
  );
}

function parseMillis(text: string): number {
  if (!/^(0|[1-9]\d{0,15})$/.test(text))
    throw malformed(TIMESTAMP_HEADER, 'must be Unix milliseconds (digits only)');
  return Number(text);
}

const eventsOf = (body: unknown): readonly unknown[] => (Array.isArray(body) ? body : []);

export function hubspotScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('hubspot', options);
  const keys = hmacKeys(options.secret, 'SHA-256');
  checkTolerance(options.tolerance);
  return guardAsync({
    name: 'hubspot',
    async sign(input) {
      const uri = hubspotSignedUri(publicUrlOf(options.publicUrl, input.url, 'hubspot'));
      // `timestamp` is Unix seconds everywhere else; HubSpot's header is milliseconds.
      const ms = String(input.timestamp * 1000);
      const mac = await keys.sign('POST', uri, input.body, ms);
      return { [SIGNATURE_HEADER]: encodeBase64(mac), [TIMESTAMP_HEADER]: ms };
    },
    async verify(input) {
      const given = base64Of(requireHeader(input.headers, SIGNATURE_HEADER), 32);
      if (given === undefined) throw malformed(SIGNATURE_HEADER, 'must be the base64 of an HMAC-SHA256');
      const text = requireHeader(input.headers, TIMESTAMP_HEADER);
      const ms = parseMillis(text);
      checkTimestampMs(ms, { tolerance: options.tolerance, now: options.now }, TIMESTAMP_HEADER);
      const uri = hubspotSignedUri(publicUrlOf(options.publicUrl, input.url, 'hubspot'));
      if (!(await keys.matches([given], 'POST', uri, input.body, text)))
        throw invalidSignature(SIGNATURE_HEADER);
      const ids = eventsOf(parseJson(input.body)).map((event) => {
        const id = field(event, 'eventId');
        return typeof id === 'number' ? String(id) : id;
      });
      return { timestamp: Math.floor(ms / 1000), id: await deliveryKey('hubspot', ids, input.body) };
    },
  });
}

export const hubspot: ProviderPreset<'hubspot'> = {
  name: 'hubspot',
  scheme: hubspotScheme,
  signature: { kind: 'preset', preset: 'hubspot' },
  // `parseBody` gives `{ type, events }`; each event: `{ eventId, subscriptionId, portalId, occurredAt,
  // subscriptionType: 'contact.creation', attemptNumber, objectId, … }`.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'type' },
  match: (event) => ({ body: event }),
  parseBody(body) {
    const events = eventsOf(parseJson(body));
    return { type: batchType(events, (event) => field(event, 'subscriptionType')), events };
  },
  eventId: (_headers, _body, verified) => verified?.id,
  eventType: (_headers, body) => stringField(body, 'type'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: hubspotWindow,
  declared: {
    idSigned: true,
    timestampSigned: true,
    handshakes: [],
  },
  // HubSpot times out after 5 seconds.
  defaultMode: 'inline',
  handshake: () => undefined,
};
