/**
 * Square (https://developer.squareup.com/docs/webhooks/step3validate): `x-square-hmacsha256-signature`
 * = base64 HMAC-SHA256 of `${notificationUrl}${rawBody}` with the subscription's signature key. The
 * URL is the notification URL exactly as registered (`preset.publicUrl` when the request URL differs,
 * e.g. behind a proxy). Nothing dates a delivery (`square-initial-delivery-timestamp` is not signed);
 * the body's `event_id` is Square's idempotency value, the same on every retry, so it is the key.
 * The legacy `x-square-signature` (HMAC-SHA1) is not accepted.
 */
import { encodeBase64 } from '../signing/encoding.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { squareWindow } from '../stores/retry-windows.js';
import { checkPresetOptions } from './preset-keys.js';
import { invalidSignature, malformed, parseJson, requireHeader, stringField } from './support.js';
import type { PresetSchemeOptions, ProviderPreset } from './types.js';
import { hmacKeys } from './web-crypto.js';
import { base64Of, guardAsync, publicUrlOf } from './web-support.js';

const HEADER = 'x-square-hmacsha256-signature';

export function squareScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('square', options);
  const keys = hmacKeys(options.secret, 'SHA-256');
  return guardAsync({
    name: 'square',
    async sign(input) {
      const url = publicUrlOf(options.publicUrl, input.url, 'square');
      return { [HEADER]: encodeBase64(await keys.sign(url, input.body)) };
    },
    async verify(input) {
      const given = base64Of(requireHeader(input.headers, HEADER), 32);
      if (given === undefined) throw malformed(HEADER, 'must be the base64 of an HMAC-SHA256');
      const url = publicUrlOf(options.publicUrl, input.url, 'square');
      if (!(await keys.matches([given], url, input.body))) throw invalidSignature(HEADER);
      return {};
    },
  });
}

export const square: ProviderPreset<'square'> = {
  name: 'square',
  scheme: squareScheme,
  signature: { kind: 'preset', preset: 'square' },
  // `{ merchant_id, type: 'payment.updated', event_id, created_at, data: { type, id, object } }`.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'type' },
  match: (event) => ({ body: event }),
  parseBody: (body) => parseJson(body),
  eventId: (_headers, body) => stringField(body, 'event_id'),
  eventType: (_headers, body) => stringField(body, 'type'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: squareWindow,
  declared: {
    idSigned: true,
    timestampSigned: false,
    handshakes: [],
    residualRisk:
      'Nothing is dated: a captured delivery is a duplicate while its event_id is remembered (2 days) and runs again after that.',
  },
  defaultMode: 'inline',
  handshake: () => undefined,
};
