/**
 * Zoom (https://developers.zoom.us/docs/api/webhooks/): `x-zm-signature: v0=<hex>` = HMAC-SHA256 of
 * `v0:${x-zm-request-timestamp}:${rawBody}` with the app's Secret Token; 300 s window. Zoom checks the
 * endpoint with a signed `endpoint.url_validation` event (and again every 72 hours), answered by
 * `handshake` with `{ plainToken, encryptedToken: hex(HMAC-SHA256(secret, plainToken)) }`. Events carry
 * no id; a retry repeats the body, so the key is the body's SHA-256. Zoom waits 3 seconds.
 */
import { encodeHex } from '../signing/encoding.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { zoomWindow } from '../stores/retry-windows.js';
import { checkTimestamp, checkTolerance, parseUnixSeconds } from '../timestamp.js';
import { checkPresetOptions } from './preset-keys.js';
import {
  invalidSignature,
  jsonResponse,
  malformed,
  parseJson,
  requireHeader,
  stringField,
} from './support.js';
import type { PresetSchemeOptions, ProviderPreset } from './types.js';
import { hmacKeys } from './web-crypto.js';
import { bodyKey, guardAsync, prefixedHex } from './web-support.js';

const SIGNATURE_HEADER = 'x-zm-signature';
const TIMESTAMP_HEADER = 'x-zm-request-timestamp';
const PREFIX = 'v0=';

export function zoomScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('zoom', options);
  const keys = hmacKeys(options.secret, 'SHA-256');
  checkTolerance(options.tolerance);
  return guardAsync({
    name: 'zoom',
    async sign(input) {
      const mac = await keys.sign(`v0:${input.timestamp}:`, input.body);
      return {
        [SIGNATURE_HEADER]: `${PREFIX}${encodeHex(mac)}`,
        [TIMESTAMP_HEADER]: String(input.timestamp),
      };
    },
    async verify(input) {
      const value = requireHeader(input.headers, SIGNATURE_HEADER);
      const timestamp = parseUnixSeconds(requireHeader(input.headers, TIMESTAMP_HEADER), TIMESTAMP_HEADER);
      const given = prefixedHex(value, PREFIX, 32);
      if (given === undefined) throw malformed(SIGNATURE_HEADER, 'must be v0=<lower-case hex SHA-256>');
      checkTimestamp(timestamp, { tolerance: options.tolerance, now: options.now }, TIMESTAMP_HEADER);
      if (!(await keys.matches([given], `v0:${timestamp}:`, input.body))) {
        throw invalidSignature(SIGNATURE_HEADER);
      }
      return { timestamp, id: await bodyKey('zoom-event', input.body) };
    },
  });
}

export const zoom: ProviderPreset<'zoom'> = {
  name: 'zoom',
  scheme: zoomScheme,
  signature: { kind: 'preset', preset: 'zoom' },
  // `{ event: 'meeting.started', event_ts, payload: { account_id, object } }`.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'event' },
  match: (event) => ({ body: event }),
  parseBody: (body) => parseJson(body),
  eventId: (_headers, _body, verified) => verified?.id,
  eventType: (_headers, body) => stringField(body, 'event'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: zoomWindow,
  declared: {
    idSigned: true,
    timestampSigned: true,
    handshakes: ['endpoint.url_validation'],
  },
  defaultMode: 'ack-fast',
  async handshake(_headers, body, options) {
    if (stringField(body, 'event') !== 'endpoint.url_validation') return undefined;
    const plainToken = stringField(body, 'payload.plainToken');
    if (plainToken === undefined || options === undefined) return undefined;
    // Answered with the first secret: the one Zoom's app currently holds during a rotation.
    const mac = await hmacKeys(options.secret, 'SHA-256').sign(plainToken);
    return jsonResponse(200, { plainToken, encryptedToken: encodeHex(mac) });
  },
};
