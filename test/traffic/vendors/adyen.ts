/**
 * Adyen's webhooks (adyen-openapi/*: Balance Platform, Management, Tokenization, Classic Platforms).
 * - Signature: an `HmacSignature` header, the base64 HMAC-SHA256 of the raw body, keyed with the
 *   HMAC key (hex) decoded to bytes; no id or timestamp header
 *   (https://docs.adyen.com/development-resources/webhooks/secure-webhooks/verify-hmac-signatures/,
 *   "Verify HMAC signatures for Balance Platform, Management API and other webhooks"). Classic
 *   payment notifications carry theirs in `additionalData.hmacSignature` instead; none is in the
 *   corpus.
 * - Body: the spec's request body as written. Balance Platform webhooks are
 *   `{ data, environment, timestamp?, type }` with `type` the webhook's name; Management and
 *   Tokenization add `createdAt` (Tokenization `eventId`); Classic Platforms notifications are
 *   `{ eventType, eventDate, executingUserKey, live, pspReference, content, error? }` with
 *   `eventType` the notification name (https://docs.adyen.com/api-explorer/).
 */
import { hmacBase64, type Vendor } from '../vendor.js';

const KEY_HEX = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
const KEY = Buffer.from(KEY_HEX, 'hex');

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

export const adyen: Vendor = {
  name: 'Adyen',
  docs: [
    'https://docs.adyen.com/development-resources/webhooks/secure-webhooks/verify-hmac-signatures/',
    'https://docs.adyen.com/development-resources/webhooks/',
    'https://docs.adyen.com/api-explorer/',
  ],
  files: (file) => file.startsWith('adyen-openapi/'),
  signature: { kind: 'hmac', header: 'HmacSignature', algorithm: 'sha256', encoding: 'base64' },
  secret: new Uint8Array(KEY),
  headers: (body) => ({ 'content-type': 'application/json', HmacSignature: hmacBase64(KEY, body) }),
  payload: 'data',
  wrap: (payload, event, whole, file) => {
    const body = record(payload);
    if (whole) {
      // The synthesised body is the payload: the documented type is the webhook's name.
      if (body !== undefined && 'type' in body) return { ...body, type: event };
      if (body !== undefined && 'eventType' in body) return { ...body, eventType: event.replace(/^\//, '') };
      return payload;
    }
    const createdAt = '2026-01-15T10:00:00+01:00';
    if (file.includes('Tokenization'))
      return { createdAt, environment: 'test', eventId: 'QBQQ9DLNRHHKGK38', data: payload, type: event };
    if (file.includes('Management')) return { createdAt, data: payload, environment: 'test', type: event };
    return { data: payload, environment: 'test', timestamp: createdAt, type: event };
  },
  specErrors: {
    'adyen-openapi/MarketPayNotificationService-v6.json /ACCOUNT_FUNDS_BELOW_THRESHOLD 0':
      'the example says eventType TRANSFER_FUNDS',
    'adyen-openapi/MarketPayNotificationService-v6.json /ACCOUNT_HOLDER_UPDATED 0':
      'the example says eventType ACCOUNT_CLOSED',
    'adyen-openapi/MarketPayNotificationService-v6.json /DIRECT_DEBIT_INITIATED 0':
      'the example says eventType TRANSFER_FUNDS',
    'adyen-openapi/MarketPayNotificationService-v6.json /PAYMENT_FAILURE 0':
      'the example says eventType TRANSFER_FUNDS',
    'adyen-openapi/MarketPayNotificationService-v6.json /REFUND_FUNDS_TRANSFER 0':
      'the example says eventType TRANSFER_FUNDS',
    'adyen-openapi/MarketPayNotificationService-v6.json /REPORT_AVAILABLE 0':
      'the example says eventType TRANSFER_FUNDS',
  },
};
