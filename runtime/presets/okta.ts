/**
 * Okta event hooks (https://developer.okta.com/docs/concepts/event-hooks/): no signature. Every request
 * carries the hook's authentication header (default `Authorization`, `preset.authHeader` for another
 * field) with the shared secret, compared in constant time. The one-time verification request is a GET
 * with `X-Okta-Verification-Challenge`, answered by `preflight` (after the same secret check) with
 * `{ "verification": <challenge> }`. Deliveries: `{ eventType: 'com.okta.event_hook', eventId,
 * data: { events: [ { uuid, eventType: 'user.lifecycle.create', … } ] } }`; one event is dispatched by
 * its `eventType`, several as `batch`; the key is the event `uuid` (several: their hash).
 */
import { WebhookError } from '../errors.js';
import type { HeadersInput, SignatureScheme } from '../signing/scheme.js';
import { oktaWindow } from '../stores/retry-windows.js';
import { checkPresetOptions } from './preset-keys.js';
import { field, headerValue, jsonResponse, parseJson, stringField } from './support.js';
import type { PresetSchemeOptions, ProviderPreset } from './types.js';
import { equalText, textSecrets } from './web-crypto.js';
import { batchType, deliveryKey, guardAsync, guardPreflight, isRecord } from './web-support.js';

const CHALLENGE_HEADER = 'X-Okta-Verification-Challenge';

function eventsOf(body: unknown): readonly unknown[] {
  const events = field(body, 'data.events');
  return Array.isArray(events) ? events : [];
}

function checkSecret(options: PresetSchemeOptions, headers: HeadersInput): void {
  const name = options.authHeader ?? 'Authorization';
  const given = headerValue(headers, name, 401);
  const secrets = textSecrets(options.secret).map((bytes) => new TextDecoder().decode(bytes));
  let matched = false;
  if (given !== undefined) for (const secret of secrets) if (equalText(given, secret)) matched = true;
  if (!matched) {
    throw new WebhookError(
      given === undefined ? 'missing_header' : 'invalid_signature',
      `${name} does not carry the event hook's secret`,
      { status: 401, details: { header: name.toLowerCase() } },
    );
  }
}

export function oktaScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('okta', options);
  textSecrets(options.secret);
  return guardAsync({
    name: 'okta',
    sign() {
      const [secret] = textSecrets(options.secret);
      return { [options.authHeader ?? 'Authorization']: new TextDecoder().decode(secret) };
    },
    async verify(input) {
      checkSecret(options, input.headers);
      const ids = eventsOf(parseJson(input.body)).map((event) => field(event, 'uuid'));
      return { id: await deliveryKey('okta', ids, input.body) };
    },
  });
}

export const okta: ProviderPreset<'okta'> = {
  name: 'okta',
  scheme: oktaScheme,
  signature: { kind: 'preset', preset: 'okta' },
  // `parseBody` adds `type` (see batchType) to Okta's body.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'type' },
  match: (event) => ({ body: event }),
  parseBody(body) {
    const parsed = parseJson(body);
    const type = batchType(eventsOf(parsed), (event) => field(event, 'eventType'));
    return { ...(isRecord(parsed) ? parsed : {}), type };
  },
  eventId: (_headers, _body, verified) => verified?.id,
  eventType: (_headers, body) => stringField(body, 'type'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: oktaWindow,
  declared: {
    idSigned: false,
    timestampSigned: false,
    handshakes: ['X-Okta-Verification-Challenge'],
    residualRisk:
      'Nothing is signed: the shared secret header authenticates the sender, not the content; a captured delivery can be altered and replayed at any time.',
  },
  // Okta waits 3 seconds, then retries once.
  defaultMode: 'ack-fast',
  handshake: () => undefined,
  preflight: guardPreflight((request, options) => {
    if (request.method !== undefined && request.method.toUpperCase() !== 'GET') return undefined;
    const challenge = headerValue(request.headers, CHALLENGE_HEADER);
    if (challenge === undefined) return undefined;
    checkSecret(options, request.headers);
    return jsonResponse(200, { verification: challenge });
  }),
};
