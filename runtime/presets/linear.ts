/**
 * Linear (https://linear.app/developers/webhooks): `Linear-Signature` = hex HMAC-SHA256 of the raw
 * body with the webhook's signing secret. The signed body carries `webhookTimestamp` (Unix ms), which
 * `@linear/sdk` accepts within 60 s either way; so does this preset. Retries are sent anew (a new
 * `webhookTimestamp`), so the key is made of signed fields that do not change between them: the entity
 * `type`, the `action`, `data.id` and `createdAt` (when the action happened). `Linear-Delivery` is not
 * signed and is used only when those are missing.
 */
import { WebhookError } from '../errors.js';
import { encodeHex } from '../signing/encoding.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { linearWindow } from '../stores/retry-windows.js';
import { checkTimestampMs, checkTolerance } from '../timestamp.js';
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
import { bodyKey, guardAsync, prefixedHex } from './web-support.js';

const HEADER = 'Linear-Signature';
const TIMESTAMP_FIELD = 'webhookTimestamp';
/** `@linear/sdk`: `Math.abs(Date.now() - timestamp) > 1000 * 60` is refused. */
export const LINEAR_TOLERANCE_SECONDS = 60;

export function linearScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('linear', options);
  const keys = hmacKeys(options.secret, 'SHA-256');
  const tolerance = options.tolerance ?? LINEAR_TOLERANCE_SECONDS;
  checkTolerance(tolerance);
  return guardAsync({
    name: 'linear',
    async sign(input) {
      // The timestamp is in the body the caller built (`webhookTimestamp`), as Linear sends it.
      return { [HEADER]: encodeHex(await keys.sign(input.body)) };
    },
    async verify(input) {
      const given = prefixedHex(requireHeader(input.headers, HEADER), '', 32);
      if (given === undefined) throw malformed(HEADER, 'must be the lower-case hex of an HMAC-SHA256');
      if (!(await keys.matches([given], input.body))) throw invalidSignature(HEADER);
      const sent = field(parseJson(input.body), TIMESTAMP_FIELD);
      if (typeof sent !== 'number' || !Number.isFinite(sent)) {
        throw new WebhookError(
          'invalid_body',
          `The signed body has no numeric ${TIMESTAMP_FIELD} (Unix ms)`,
          {
            details: { pointer: `/${TIMESTAMP_FIELD}` },
          },
        );
      }
      checkTimestampMs(sent, { tolerance, now: options.now }, TIMESTAMP_FIELD);
      return { timestamp: Math.floor(sent / 1000), id: await linearKey(input.headers, input.body) };
    },
  });
}

async function linearKey(
  headers: Parameters<typeof headerValue>[0],
  raw: Parameters<typeof bodyKey>[1],
): Promise<string> {
  const body = parseJson(raw);
  const parts = [
    stringField(body, 'type'),
    stringField(body, 'action'),
    stringField(body, 'data.id'),
    stringField(body, 'createdAt'),
  ];
  if (parts.every((part) => part !== undefined)) return `linear:${parts.join(':')}`;
  const delivery = headerValue(headers, 'Linear-Delivery');
  return delivery === undefined ? bodyKey('linear', raw) : `linear-delivery:${delivery}`;
}

export const linear: ProviderPreset<'linear'> = {
  name: 'linear',
  scheme: linearScheme,
  signature: { kind: 'preset', preset: 'linear' },
  // `{ action: 'create', type: 'Issue', data: { id, … }, createdAt, url, webhookTimestamp, webhookId }`.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'type' },
  match: (event) => ({ body: event }),
  parseBody: (body) => parseJson(body),
  eventId: (headers, _body, verified) => verified?.id ?? headerValue(headers, 'Linear-Delivery'),
  eventType: (_headers, body) => stringField(body, 'type'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: linearWindow,
  declared: {
    idSigned: true,
    timestampSigned: true,
    handshakes: [],
  },
  // Linear waits 5 seconds.
  defaultMode: 'inline',
  handshake: () => undefined,
};
