/**
 * GitHub (github-openapi-webhooks-subset/ and the full @octokit/openapi-webhooks description).
 * - Body: the event payload itself, `action` naming the activity where the event has several
 *   (https://docs.github.com/en/webhooks/webhook-events-and-payloads).
 * - Headers: `X-GitHub-Event` (the event name, `issues`), `X-GitHub-Delivery` (a GUID),
 *   `X-GitHub-Hook-ID`, `User-Agent: GitHub-Hookshot/…`, and `X-Hub-Signature-256: sha256=<hex
 *   HMAC-SHA256 of the body with the webhook secret>`
 *   (https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries,
 *   https://docs.github.com/en/webhooks/webhook-events-and-payloads#delivery-headers).
 */
import { randomUUID } from 'node:crypto';
import { hmacHex, type Vendor } from '../vendor.js';

const SECRET = "It's a Secret to Everybody";

/** The `X-GitHub-Event` of a contract event named `<event>.<action>` or `<event>`. */
export function githubEvent(event: string): string {
  return event.split('.')[0] as string;
}

export const github: Vendor = {
  name: 'GitHub',
  docs: [
    'https://docs.github.com/en/webhooks/webhook-events-and-payloads',
    'https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries',
  ],
  files: (file) => file.startsWith('github-openapi-webhooks-subset/'),
  secret: SECRET,
  headers: (body, { event }) => ({
    'content-type': 'application/json',
    'user-agent': 'GitHub-Hookshot/044aadd',
    'x-github-event': githubEvent(event),
    'x-github-delivery': randomUUID(),
    'x-github-hook-id': '292430182',
    'x-hub-signature-256': `sha256=${hmacHex(SECRET, body)}`,
  }),
  deliveryId: (headers) => headers['x-github-delivery'],
  payload: 'bare',
  wrap: (payload, event) => {
    const action = event.split('.')[1];
    return action === undefined || typeof payload !== 'object' || payload === null
      ? payload
      : { ...(payload as object), action };
  },
};
