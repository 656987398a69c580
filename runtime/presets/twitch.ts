/**
 * Twitch EventSub webhooks (https://dev.twitch.tv/docs/eventsub/handling-webhook-events/):
 * `Twitch-Eventsub-Message-Signature: sha256=<hex>` = HMAC-SHA256 of `${Message-Id}${Message-Timestamp}
 * ${rawBody}` with the subscription's secret. The id and timestamp are signed: the id is the dedupe key
 * (a resent message keeps it) and the timestamp (RFC 3339, nanoseconds) must be at most 10 minutes old,
 * as Twitch's guide says. `handshake` answers `webhook_callback_verification` with the challenge as
 * text/plain and acknowledges `revocation` with a 204 after calling `preset.onRevocation`.
 */
import { WebhookError } from '../errors.js';
import { encodeHex } from '../signing/encoding.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { twitchWindow } from '../stores/retry-windows.js';
import { checkTimestamp, checkTolerance } from '../timestamp.js';
import { checkPresetOptions } from './preset-keys.js';
import {
  field,
  headerValue,
  invalidSignature,
  malformed,
  parseJson,
  requireHeader,
  stringField,
} from './support.js';
import type { PresetSchemeOptions, ProviderPreset } from './types.js';
import { hmacKeys } from './web-crypto.js';
import { emptyResponse, guardAsync, hookFailed, prefixedHex, textResponse } from './web-support.js';

const ID_HEADER = 'Twitch-Eventsub-Message-Id';
const TIMESTAMP_HEADER = 'Twitch-Eventsub-Message-Timestamp';
const SIGNATURE_HEADER = 'Twitch-Eventsub-Message-Signature';
const TYPE_HEADER = 'Twitch-Eventsub-Message-Type';
const PREFIX = 'sha256=';
/** "Make sure the value in the timestamp field isn't older than 10 minutes." */
export const TWITCH_TOLERANCE_SECONDS = 600;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

/** Unix seconds of an RFC 3339 timestamp (fractions dropped); `malformed_header` for anything else. */
export function parseRfc3339Seconds(text: string, header: string): number {
  const match = RFC3339.exec(text);
  if (match === null) throw malformed(header, 'must be an RFC 3339 timestamp');
  const [, y, mo, d, h, mi, s, , zone] = match.map((part) => part ?? '');
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const date = new Date(ms);
  // Date.UTC rolls 2024-02-30 over into March: such a date is not a timestamp.
  if (date.getUTCDate() !== Number(d) || date.getUTCMonth() !== Number(mo) - 1 || Number(h) > 23) {
    throw malformed(header, 'must be an RFC 3339 timestamp');
  }
  let offset = 0;
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    offset = sign * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  }
  return Math.floor(ms / 1000) - offset;
}

export function twitchScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('twitch', options);
  const keys = hmacKeys(options.secret, 'SHA-256');
  const tolerance = options.tolerance ?? TWITCH_TOLERANCE_SECONDS;
  checkTolerance(tolerance);
  const now = options.now ?? Date.now;
  return guardAsync({
    name: 'twitch',
    async sign(input) {
      const timestamp = new Date(input.timestamp * 1000).toISOString();
      const mac = await keys.sign(input.id, timestamp, input.body);
      return {
        [ID_HEADER]: input.id,
        [TIMESTAMP_HEADER]: timestamp,
        [SIGNATURE_HEADER]: `${PREFIX}${encodeHex(mac)}`,
      };
    },
    async verify(input) {
      const id = requireHeader(input.headers, ID_HEADER);
      const text = requireHeader(input.headers, TIMESTAMP_HEADER);
      const value = requireHeader(input.headers, SIGNATURE_HEADER);
      const given = prefixedHex(value, PREFIX, 32);
      if (given === undefined) throw malformed(SIGNATURE_HEADER, 'must be sha256=<lower-case hex>');
      const timestamp = parseRfc3339Seconds(text, TIMESTAMP_HEADER);
      checkTimestamp(timestamp, { tolerance, now }, TIMESTAMP_HEADER);
      // The header text is signed as sent (Twitch's own spelling, nanoseconds included).
      if (!(await keys.matches([given], id, text, input.body))) throw invalidSignature(SIGNATURE_HEADER);
      return { id, timestamp };
    },
  });
}

export const twitch: ProviderPreset<'twitch'> = {
  name: 'twitch',
  scheme: twitchScheme,
  signature: { kind: 'preset', preset: 'twitch' },
  // `{ subscription: { id, type: 'channel.follow', version, … }, event: { … } }`.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'subscription.type' },
  match: (event) => ({ body: event }),
  parseBody: (body) => parseJson(body),
  eventId: (headers, _body, verified) => verified?.id ?? headerValue(headers, ID_HEADER),
  eventType: (_headers, body) => stringField(body, 'subscription.type'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: twitchWindow,
  declared: {
    idSigned: true,
    timestampSigned: true,
    handshakes: ['webhook_callback_verification', 'revocation'],
  },
  // "You must respond to notification requests within a few seconds."
  defaultMode: 'ack-fast',
  async handshake(headers, body, options) {
    const type = headerValue(headers, TYPE_HEADER);
    if (type === 'webhook_callback_verification') {
      const challenge = field(body, 'challenge');
      if (typeof challenge !== 'string') {
        throw new WebhookError('invalid_body', 'webhook_callback_verification has no challenge string', {
          details: { pointer: '/challenge' },
        });
      }
      return textResponse(200, challenge);
    }
    // The type header is not signed: a body with an event is a notification, whatever the header says.
    if (type === 'revocation' && field(body, 'event') === undefined) {
      // A revoked subscription is news for the application, not a failed event: 2xx, and the hook.
      try {
        await options?.onRevocation?.(field(body, 'subscription'));
      } catch (cause) {
        throw hookFailed('onRevocation', cause);
      }
      return emptyResponse(204);
    }
    return undefined;
  },
};
