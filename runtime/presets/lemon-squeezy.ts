/**
 * Lemon Squeezy (https://docs.lemonsqueezy.com/help/webhooks/signing-requests): `X-Signature` = hex
 * HMAC-SHA256 of the raw body with the webhook's signing secret. Nothing dates a delivery and the body
 * has no event id (`meta.webhook_id` names the webhook, not the event); a retry repeats the body, so
 * the key is its SHA-256. The event name is the signed `meta.event_name` (`X-Event-Name` is not signed).
 */
import { encodeHex } from '../signing/encoding.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { lemonSqueezyWindow } from '../stores/retry-windows.js';
import { checkPresetOptions } from './preset-keys.js';
import { invalidSignature, malformed, parseJson, requireHeader, stringField } from './support.js';
import type { PresetSchemeOptions, ProviderPreset } from './types.js';
import { hmacKeys } from './web-crypto.js';
import { bodyKey, guardAsync, prefixedHex } from './web-support.js';

const HEADER = 'X-Signature';

export function lemonSqueezyScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('lemon-squeezy', options);
  const keys = hmacKeys(options.secret, 'SHA-256');
  return guardAsync({
    name: 'lemon-squeezy',
    async sign(input) {
      return { [HEADER]: encodeHex(await keys.sign(input.body)) };
    },
    async verify(input) {
      const given = prefixedHex(requireHeader(input.headers, HEADER), '', 32);
      if (given === undefined) throw malformed(HEADER, 'must be the lower-case hex of an HMAC-SHA256');
      if (!(await keys.matches([given], input.body))) throw invalidSignature(HEADER);
      return { id: await bodyKey('lemon-squeezy', input.body) };
    },
  });
}

export const lemonSqueezy: ProviderPreset<'lemon-squeezy'> = {
  name: 'lemon-squeezy',
  scheme: lemonSqueezyScheme,
  signature: { kind: 'preset', preset: 'lemon-squeezy' },
  // `{ meta: { event_name: 'order_created', custom_data, webhook_id }, data: { type, id, attributes } }`.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'meta.event_name' },
  match: (event) => ({ body: event }),
  parseBody: (body) => parseJson(body),
  eventId: (_headers, _body, verified) => verified?.id,
  eventType: (_headers, body) => stringField(body, 'meta.event_name'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: lemonSqueezyWindow,
  declared: {
    idSigned: true,
    timestampSigned: false,
    handshakes: [],
    residualRisk:
      'Nothing is dated: a captured delivery is a duplicate while its body hash is remembered (25 hours) and runs again after that.',
  },
  defaultMode: 'inline',
  handshake: () => undefined,
};
