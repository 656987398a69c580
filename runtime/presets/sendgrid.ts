/**
 * Twilio SendGrid Event Webhook, signed (https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/getting-started-event-webhook-security-features):
 * `X-Twilio-Email-Event-Webhook-Signature` = base64 DER ECDSA (P-256, SHA-256) signature of
 * `${X-Twilio-Email-Event-Webhook-Timestamp}${rawBody}`; the `secret` is the verification key shown
 * under Mail Settings (base64 DER public key, or PEM). The signed timestamp gets the 300 s window. The
 * body is an array of events: one is dispatched by its `event` (`delivered`, `open`, …), several as
 * `batch`; the key is `sg_event_id` (several: their hash).
 */
import { WebhookError } from '../errors.js';
import { decodeBase64, encodeBase64 } from '../signing/encoding.js';
import type { Secret, SignatureScheme } from '../signing/scheme.js';
import { secretList } from '../signing/standard-webhooks-core.js';
import { sendgridWindow } from '../stores/retry-windows.js';
import { checkTimestamp, checkTolerance, parseUnixSeconds } from '../timestamp.js';
import { checkPresetOptions } from './preset-keys.js';
import { field, invalidSignature, malformed, parseJson, requireHeader, stringField } from './support.js';
import type { PresetSchemeOptions, ProviderPreset } from './types.js';
import {
  derFromText,
  derToRawSignature,
  ecdsaP256Key,
  ecdsaP256Sign,
  ecdsaP256Verify,
  rawToDerSignature,
} from './web-crypto.js';
import { batchType, deliveryKey, guardAsync } from './web-support.js';

const SIGNATURE_HEADER = 'X-Twilio-Email-Event-Webhook-Signature';
const TIMESTAMP_HEADER = 'X-Twilio-Email-Event-Webhook-Timestamp';

function keyBytes(key: Secret, what: string): Uint8Array {
  const bytes = typeof key === 'string' ? derFromText(key) : key instanceof Uint8Array ? key : undefined;
  if (bytes === undefined)
    throw new WebhookError('invalid_key', `sendgrid: the ${what} is not base64 DER or PEM`);
  return bytes;
}

const eventsOf = (body: unknown): readonly unknown[] => (Array.isArray(body) ? body : []);

export function sendgridScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('sendgrid', options);
  const keys = secretList(options.secret).map((key) => keyBytes(key, 'verification key'));
  const imported = Promise.all(keys.map((bytes) => ecdsaP256Key(bytes)));
  // A key that does not import fails verification with invalid_key, not an unhandled rejection.
  imported.catch(() => {});
  checkTolerance(options.tolerance);
  const signingKey =
    options.signingKey === undefined ? undefined : keyBytes(options.signingKey, 'signingKey');
  return guardAsync({
    name: 'sendgrid',
    async sign(input) {
      if (signingKey === undefined) {
        throw new WebhookError(
          'invalid_config',
          'sendgrid: signing needs the signingKey option (PKCS#8 P-256)',
        );
      }
      const raw = await ecdsaP256Sign(signingKey, String(input.timestamp), input.body);
      return {
        [SIGNATURE_HEADER]: encodeBase64(rawToDerSignature(raw)),
        [TIMESTAMP_HEADER]: String(input.timestamp),
      };
    },
    async verify(input) {
      const value = requireHeader(input.headers, SIGNATURE_HEADER);
      const text = requireHeader(input.headers, TIMESTAMP_HEADER);
      const der = decodeBase64(value);
      const signature = der === undefined ? undefined : derToRawSignature(der);
      if (signature === undefined) throw malformed(SIGNATURE_HEADER, 'must be a base64 DER ECDSA signature');
      const timestamp = parseUnixSeconds(text, TIMESTAMP_HEADER);
      checkTimestamp(timestamp, { tolerance: options.tolerance, now: options.now }, TIMESTAMP_HEADER);
      let matched = false;
      for (const key of await imported)
        if (await ecdsaP256Verify(key, signature, text, input.body)) matched = true;
      if (!matched) throw invalidSignature(SIGNATURE_HEADER);
      const ids = eventsOf(parseJson(input.body)).map((event) => field(event, 'sg_event_id'));
      return { timestamp, id: await deliveryKey('sendgrid', ids, input.body) };
    },
  });
}

export const sendgrid: ProviderPreset<'sendgrid'> = {
  name: 'sendgrid',
  scheme: sendgridScheme,
  signature: { kind: 'preset', preset: 'sendgrid' },
  // `parseBody` gives `{ type, events }`; each event: `{ email, timestamp, event, sg_event_id, sg_message_id, … }`.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'type' },
  match: (event) => ({ body: event }),
  parseBody(body) {
    const events = eventsOf(parseJson(body));
    return { type: batchType(events, (event) => field(event, 'event')), events };
  },
  eventId: (_headers, _body, verified) => verified?.id,
  eventType: (_headers, body) => stringField(body, 'type'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: sendgridWindow,
  declared: {
    idSigned: true,
    timestampSigned: true,
    handshakes: [],
  },
  defaultMode: 'inline',
  handshake: () => undefined,
};
