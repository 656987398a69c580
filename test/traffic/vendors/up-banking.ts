/**
 * Up Banking (up-banking-api/openapi.json): one callback, `Event`, on `POST /webhooks`.
 * - Body: `{ "data": { "type": "webhook-events", "id", "attributes": { "eventType", "createdAt" },
 *   "relationships": { … } } }` (JSON:API), documented by the callback's `x-up:example`.
 * - Signature: `X-Up-Authenticity-Signature`, the hex SHA-256 HMAC of the raw body keyed with the
 *   webhook's `secretKey` (https://developer.up.com.au/#callback_post_webhookURL, "Securing
 *   Webhook Event Handlers"; the same text is the callback's description in the spec).
 */
import { rawDocument } from '../spec-examples.js';
import { hmacHex, type Vendor } from '../vendor.js';

const SECRET_KEY = 'up-traffic-test-secret-key-from-webhook-creation';

export const upBanking: Vendor = {
  name: 'Up',
  docs: ['https://developer.up.com.au/#callback_post_webhookURL', 'https://developer.up.com.au/#webhooks'],
  files: (file) => file.startsWith('up-banking-api/'),
  signature: { kind: 'hmac', header: 'X-Up-Authenticity-Signature', algorithm: 'sha256', encoding: 'hex' },
  secret: SECRET_KEY,
  headers: (body) => ({
    'content-type': 'application/json',
    'X-Up-Authenticity-Signature': hmacHex(SECRET_KEY, body),
  }),
  payload: 'data',
  wrap: (payload, _event, whole) => (whole ? payload : { data: payload }),
  examples: (file) => {
    const doc = rawDocument(file) as {
      paths: Record<
        string,
        { post: { callbacks: Record<string, Record<string, { post: Record<string, unknown> }>> } }
      >;
    };
    const example = doc.paths['/webhooks']?.post.callbacks.Event?.['{webhookURL}']?.post['x-up:example'] as
      | { payload?: unknown }
      | undefined;
    return example?.payload === undefined ? [] : [example.payload];
  },
};
