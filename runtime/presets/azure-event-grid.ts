/**
 * Azure Event Grid push delivery to a webhook (https://learn.microsoft.com/en-us/azure/event-grid/webhook-event-delivery).
 * Event Grid signs nothing; the endpoint authenticates it by a shared secret in the endpoint URL's query
 * (`?code=<secret>`, the default here) or in a delivery-property header (`preset.secretIn`), compared
 * in constant time. Both validation handshakes are answered without user code:
 * - Event Grid schema: the `Microsoft.EventGrid.SubscriptionValidationEvent` POST (behind the secret
 *   check) with `{ validationResponse: data.validationCode }`;
 * - CloudEvents 1.0 schema: the abuse-protection `OPTIONS` with `WebHook-Request-Origin`, answered by
 *   `preflight` (secret checked too) with `WebHook-Allowed-Origin` and `WebHook-Allowed-Rate`.
 * Events: an Event Grid array or a CloudEvents batch/structured event; one event is dispatched by its
 * `eventType` (CloudEvents `type`), several as `batch`; the key is the event `id` (several: their hash).
 */
import { WebhookError } from '../errors.js';
import type { HeadersInput, SignatureScheme } from '../signing/scheme.js';
import { azureEventGridWindow } from '../stores/retry-windows.js';
import { checkPresetOptions } from './preset-keys.js';
import { field, headerValue, jsonResponse, parseJson, stringField } from './support.js';
import type { PresetOptions, PresetSchemeOptions, ProviderPreset } from './types.js';
import { equalText, textSecrets } from './web-crypto.js';
import {
  batchType,
  deliveryKey,
  emptyResponse,
  guardAsync,
  guardPreflight,
  isRecord,
  queryParam,
} from './web-support.js';

const VALIDATION_EVENT = 'Microsoft.EventGrid.SubscriptionValidationEvent';
const ORIGIN_HEADER = 'WebHook-Request-Origin';
const DEFAULT_ORIGINS = ['eventgrid.azure.net'] as const;

/** The events of a delivery: an Event Grid array, a CloudEvents batch, or one structured CloudEvent. */
export function eventGridEvents(body: unknown): readonly unknown[] {
  if (Array.isArray(body)) return body;
  return isRecord(body) ? [body] : [];
}

const typeOf = (event: unknown): unknown =>
  isRecord(event) ? (event['eventType'] ?? event['type']) : undefined;

function checkSecret(
  secrets: readonly string[],
  where: NonNullable<PresetOptions['secretIn']>,
  headers: HeadersInput,
  url: string | undefined,
): void {
  const given = 'header' in where ? headerValue(headers, where.header, 401) : queryParam(url, where.query);
  let matched = false;
  if (given !== undefined) for (const secret of secrets) if (equalText(given, secret)) matched = true;
  if (!matched) {
    const name = 'header' in where ? `${where.header} header` : `"${where.query}" query parameter`;
    throw new WebhookError('invalid_signature', `The ${name} does not carry the endpoint secret`, {
      details: 'header' in where ? { header: where.header.toLowerCase() } : { query: where.query },
    });
  }
}

function secretsOf(options: PresetSchemeOptions): readonly string[] {
  return textSecrets(options.secret).map((bytes) => new TextDecoder().decode(bytes));
}

export function azureEventGridScheme(options: PresetSchemeOptions): SignatureScheme {
  checkPresetOptions('azure-event-grid', options);
  const secrets = secretsOf(options);
  const where = options.secretIn ?? { query: 'code' };
  return guardAsync({
    name: 'azure-event-grid',
    sign() {
      // The secret is part of the endpoint URL (or a delivery property header), not of a signature.
      return 'header' in where ? { [where.header]: secrets[0] ?? '' } : {};
    },
    async verify(input) {
      checkSecret(secrets, where, input.headers, input.url);
      const ids = eventGridEvents(parseJson(input.body)).map((event) => field(event, 'id'));
      return { id: await deliveryKey('azure-event-grid', ids, input.body) };
    },
  });
}

export const azureEventGrid: ProviderPreset<'azure-event-grid'> = {
  name: 'azure-event-grid',
  scheme: azureEventGridScheme,
  signature: { kind: 'preset', preset: 'azure-event-grid' },
  // `parseBody` gives `{ type, events }` (see batchType): handlers get the events as sent.
  envelope: { kind: 'bare' },
  selector: { kind: 'body', field: 'type' },
  match: (event) => ({ body: event }),
  parseBody(body) {
    const events = eventGridEvents(parseJson(body));
    return { type: batchType(events, typeOf), events };
  },
  eventId: (_headers, _body, verified) => verified?.id,
  eventType: (_headers, body) => stringField(body, 'type'),
  // Retry window of the provider plus a margin (shared table in stores/retry-windows.ts).
  dedupeTtlMs: azureEventGridWindow,
  declared: {
    idSigned: false,
    timestampSigned: false,
    handshakes: ['SubscriptionValidationEvent', 'CloudEvents OPTIONS'],
    residualRisk:
      'Nothing is signed: the shared secret in the URL (or header) authenticates the sender, not the content; a captured delivery can be altered and replayed at any time.',
  },
  defaultMode: 'inline',
  handshake(_headers, body) {
    const events = isRecord(body) && Array.isArray(body['events']) ? body['events'] : [];
    const [event] = events;
    if (events.length !== 1 || typeOf(event) !== VALIDATION_EVENT) return undefined;
    const code = field(event, 'data.validationCode');
    if (typeof code !== 'string') {
      throw new WebhookError('invalid_body', 'SubscriptionValidationEvent has no data.validationCode', {
        details: { pointer: '/0/data/validationCode' },
      });
    }
    return jsonResponse(200, { validationResponse: code });
  },
  preflight: guardPreflight((request, options) => {
    if (request.method?.toUpperCase() !== 'OPTIONS') return undefined;
    const origin = headerValue(request.headers, ORIGIN_HEADER);
    if (origin === undefined) return undefined;
    checkSecret(secretsOf(options), options.secretIn ?? { query: 'code' }, request.headers, request.url);
    const allowed = options.allowedOrigins ?? DEFAULT_ORIGINS;
    if (allowed !== '*' && !allowed.some((one) => one.toLowerCase() === origin.toLowerCase())) {
      throw new WebhookError('invalid_signature', `${ORIGIN_HEADER} ${origin} is not an allowed origin`, {
        status: 403,
        details: { header: ORIGIN_HEADER.toLowerCase() },
      });
    }
    const rate = options.allowedRate ?? '*';
    return emptyResponse(200, {
      'webhook-allowed-origin': origin,
      'webhook-allowed-rate': String(rate),
      allow: 'POST, OPTIONS',
    });
  }),
};
