/**
 * Which event a received request is a delivery of, without a contract: the id from the usual id
 * headers, else the envelope's `id`, else a hash of the body (retries resend the same bytes). Used by
 * `mock-receiver` to group attempts and by `listen` when it has no contract for the request.
 */
import { createHash } from 'node:crypto';

const ID_HEADERS = [
  'webhook-id',
  'svix-id',
  'x-github-delivery',
  'x-shopify-webhook-id',
  'x-webhook-id',
  'x-event-id',
  'idempotency-key',
] as const;

const TYPE_HEADERS = ['webhook-type', 'x-github-event', 'x-shopify-topic', 'x-event-type'] as const;

export interface DeliveryIdentity {
  readonly id: string;
  /** Where the id came from: a header name, `body.id`, or `body-hash`. */
  readonly idSource: string;
  readonly type?: string;
}

type HeaderRecord = { readonly [name: string]: string | readonly string[] | undefined };

function header(headers: HeaderRecord, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}

function parseJsonObject(body: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(body).toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `headers` must have lower-case names (Node's `IncomingMessage.headers`). */
export function identifyDelivery(headers: HeaderRecord, body: Uint8Array): DeliveryIdentity {
  const json = parseJsonObject(body);
  let type: string | undefined;
  for (const name of TYPE_HEADERS) {
    type = header(headers, name);
    if (type) break;
  }
  if (!type && json) {
    const candidate = json.type ?? json.event ?? json.topic;
    if (typeof candidate === 'string') type = candidate;
  }
  const withType = (id: string, idSource: string): DeliveryIdentity =>
    type === undefined ? { id, idSource } : { id, idSource, type };

  for (const name of ID_HEADERS) {
    const id = header(headers, name);
    if (id) return withType(id, name);
  }
  const bodyId = json?.id;
  if (typeof bodyId === 'string' || typeof bodyId === 'number') return withType(String(bodyId), 'body.id');
  const digest = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return withType(`sha256:${digest}`, 'body-hash');
}
