/**
 * Svix's own server (svix-webhooks/server-openapi.json): its operational webhooks.
 * - Body: `{ "type": "endpoint.created", "data": { … } }` — the event type is the dotted name, not
 *   the schema key (`EndpointCreatedEvent`); no id or timestamp in the body
 *   (https://docs.svix.com/incoming-webhooks, "Operational webhooks"; the type names listed there).
 * - Signature: Standard Webhooks — id, timestamp and `v1,<base64 HMAC-SHA256(id.timestamp.body)>`
 *   headers, secret `whsec_<base64>` (https://docs.svix.com/receiving/verifying-payloads/how-manual,
 *   https://www.standardwebhooks.com/). Svix writes them as `svix-*`; the Standard Webhooks
 *   spelling `webhook-*` is used here, as Standard Webhooks receivers read it.
 */
import { standardWebhooksHeaders, type Vendor } from '../vendor.js';

const SECRET = `whsec_${Buffer.from('svix-traffic-test-secret-32bytes').toString('base64')}`;

/** The operational event types Svix documents, per spec key. */
const TYPES: Record<string, string> = {
  EndpointCreatedEvent: 'endpoint.created',
  EndpointDeletedEvent: 'endpoint.deleted',
  EndpointDisabledEvent: 'endpoint.disabled',
  EndpointUpdatedEvent: 'endpoint.updated',
  MessageAttemptExhaustedEvent: 'message.attempt.exhausted',
  MessageAttemptFailingEvent: 'message.attempt.failing',
  MessageAttemptRecoveredEvent: 'message.attempt.recovered',
};

export const svix: Vendor = {
  name: 'Svix',
  docs: [
    'https://docs.svix.com/incoming-webhooks',
    'https://docs.svix.com/receiving/verifying-payloads/how-manual',
    'https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md',
  ],
  files: (file) => file.startsWith('svix-webhooks/'),
  secret: SECRET,
  headers: (body, { timestamp }) => standardWebhooksHeaders(SECRET, body, timestamp),
  deliveryId: (headers) => headers['webhook-id'],
  payload: 'data',
  wrap: (payload, event) => ({ type: TYPES[event] ?? event, data: payload }),
};
