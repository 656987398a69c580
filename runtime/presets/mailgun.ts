/**
 * Mailgun webhooks (https://documentation.mailgun.com/docs/mailgun/user-manual/tracking-messages/#securing-webhooks):
 * the JSON body carries `signature: { timestamp, token, signature }`, where `signature` = hex
 * HMAC-SHA256 of `${timestamp}${token}` with the HTTP webhook signing key; 300 s window on the signed
 * `timestamp`. The event itself (`event-data`) is NOT covered by the signature (docs/presets.md, Replays).
 * The key is `event-data.id`, which Mailgun keeps on its retries.
 */
import { WebhookError } from '../errors.js';
import { encodeHex } from '../signing/encoding.js';
import type { SignatureScheme } from '../signing/scheme.js';
import { mailgunWindow } from '../stores/retry-windows.js';
import { checkTimestamp, checkTolerance, parseUnixSeconds } from '../timestamp.js';
import { checkPresetOptions } from './preset-keys.js';
import { field, parseJson, stringField } from './support.js';
import type { PresetSchemeOptions, ProviderPreset } from './types.js';
import { hmacKeys } from './web-crypto.js';
import { guardAsync, isRecord, prefixedHex } from './web-support.js';

function bodyField(body: unknown, path: string, what: string): string {
  const value = field(body, path);
  if (typeof value !== 'string' || value === '') {
    throw new WebhookError('invalid_body', `The body has no ${path} (${what})`, {
      details: { pointer: `/${path.replaceAll('.', '/')}` },
    });
  }
  return value;
}

export function mailgunScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('mailgun', options);
  const keys = hmacKeys(options.secret, 'SHA-256');
  checkTolerance(options.tolerance);
  return guardAsync({
    name: 'mailgun',
    async sign() {
      // The signature lives in the body; build it with `mailgunSignature` (tests, `send`).
      return {};
    },
    async verify(input) {
      const body = parseJson(input.body);
      if (!isRecord(body)) throw new WebhookError('invalid_body', 'A Mailgun webhook body is a JSON object');
      const text = bodyField(body, 'signature.timestamp', 'Unix seconds');
      const token = bodyField(body, 'signature.token', 'a random token');
      const given = prefixedHex(bodyField(body, 'signature.signature', 'hex HMAC-SHA256'), '', 32);
      if (given === undefined) {
        throw new WebhookError(
          'invalid_body',
          'signature.signature must be lower-case hex of an HMAC-SHA256',
          {
            details: { pointer: '/signature/signature' },
          },
        );
      }
      let timestamp: number;
      try {
        timestamp = parseUnixSeconds(text, 'signature.timestamp');
      } catch (cause) {
        throw new WebhookError('invalid_body', 'signature.timestamp must be Unix seconds (digits only)', {
          details: { pointer: '/signature/timestamp' },
          cause,
        });
      }
      checkTimestamp(timestamp, { tolerance: options.tolerance, now: options.now }, 'signature.timestamp');
      if (!(await keys.matches([given], text, token))) {
        throw new WebhookError(
          'invalid_signature',
          'signature.signature does not match the token and signing key',
          {
            details: { pointer: '/signature/signature' },
          },
        );
      }
      return { timestamp };
    },
  });
}

/** The `signature` object Mailgun puts in a webhook body, for tests and `send`. */
export async function mailgunSignature(
  signingKey: string,
  timestamp: number,
  token: string,
): Promise<{ timestamp: string; token: string; signature: string }> {
  const mac = await hmacKeys(signingKey, 'SHA-256').sign(String(timestamp), token);
  return { timestamp: String(timestamp), token, signature: encodeHex(mac) };
}

export const mailgun: ProviderPreset<'mailgun'> = {
  name: 'mailgun',
  scheme: mailgunScheme,
  signature: { kind: 'preset', preset: 'mailgun' },
  // `{ signature: { timestamp, token, signature }, 'event-data': { id, event: 'delivered', timestamp, … } }`.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'event-data.event' },
  match: (event) => ({ body: event }),
  parseBody: (body) => parseJson(body),
  eventId: (_headers, body) => stringField(body, 'event-data.id'),
  eventType: (_headers, body) => stringField(body, 'event-data.event'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: mailgunWindow,
  declared: {
    idSigned: false,
    timestampSigned: true,
    handshakes: [],
    residualRisk:
      'event-data (and its id) is not signed: within the window a captured signature block can carry any event.',
  },
  defaultMode: 'inline',
  handshake: () => undefined,
};
