/**
 * Intercom (https://developers.intercom.com/docs/references/webhooks/webhook-models): `X-Hub-Signature:
 * sha1=<hex>` = HMAC-SHA1 of the raw body with the app's client secret. Nothing in the headers is
 * dated; the signed body has the notification `id` (`notif_…`, kept across retries: only
 * `delivery_attempts` changes), the key, and `first_sent_at` (Unix seconds), which `preset.maxAge`
 * can bound (off by default: retries keep the first send time).
 */
import { WebhookError } from '../errors.js';
import { encodeHex } from '../signing/encoding.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { intercomWindow } from '../stores/retry-windows.js';
import { checkTimestamp } from '../timestamp.js';
import { checkPresetOptions } from './preset-keys.js';
import { field, invalidSignature, malformed, parseJson, requireHeader, stringField } from './support.js';
import type { PresetSchemeOptions, ProviderPreset } from './types.js';
import { hmacKeys } from './web-crypto.js';
import { guardAsync, prefixedHex } from './web-support.js';

const HEADER = 'X-Hub-Signature';
const PREFIX = 'sha1=';

export function intercomScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('intercom', options);
  const keys = hmacKeys(options.secret, 'SHA-1');
  const maxAge = options.maxAge;
  if (maxAge !== undefined && !(typeof maxAge === 'number' && maxAge >= 0)) {
    throw new WebhookError('invalid_config', 'intercom: maxAge must be a non-negative number of seconds');
  }
  return guardAsync({
    name: 'intercom',
    async sign(input) {
      return { [HEADER]: `${PREFIX}${encodeHex(await keys.sign(input.body))}` };
    },
    async verify(input) {
      const given = prefixedHex(requireHeader(input.headers, HEADER), PREFIX, 20);
      if (given === undefined) throw malformed(HEADER, 'must be sha1=<lower-case hex>');
      if (!(await keys.matches([given], input.body))) throw invalidSignature(HEADER);
      if (maxAge === undefined) return {};
      const sent = field(parseJson(input.body), 'first_sent_at');
      if (typeof sent !== 'number' || !Number.isSafeInteger(sent)) {
        throw new WebhookError('invalid_body', 'maxAge needs the signed first_sent_at (Unix seconds)', {
          details: { pointer: '/first_sent_at' },
        });
      }
      checkTimestamp(
        sent,
        { tolerance: { past: maxAge, future: Number.POSITIVE_INFINITY }, now: options.now },
        'first_sent_at',
      );
      return { timestamp: sent };
    },
  });
}

export const intercom: ProviderPreset<'intercom'> = {
  name: 'intercom',
  scheme: intercomScheme,
  signature: { kind: 'preset', preset: 'intercom' },
  // `{ type: 'notification_event', id: 'notif_…', topic: 'conversation.user.created', created_at,
  // delivery_attempts, first_sent_at, data: { item } }`.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'topic' },
  match: (event) => ({ body: event }),
  parseBody: (body) => parseJson(body),
  eventId: (_headers, body) => stringField(body, 'id'),
  eventType: (_headers, body) => stringField(body, 'topic'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: intercomWindow,
  declared: {
    idSigned: true,
    timestampSigned: false,
    handshakes: [],
    residualRisk:
      'Nothing is dated unless maxAge is set: a captured delivery is a duplicate while its notification id is remembered (25 hours) and runs again after that.',
  },
  defaultMode: 'inline',
  handshake: () => undefined,
};
