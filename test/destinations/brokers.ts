/** Shared fixtures of the destination tests: broker URLs, unique names, an amqp: URL builder. */
import { randomBytes } from 'node:crypto';

export const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** A name no concurrent test uses: `gw_dest_<tag>_<random>`. */
export function unique(tag: string): string {
  return `gw_dest_${tag}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** `amqp://user:pass@host:port/?routingKey=<queue>` on the broker of AMQP_URL (default exchange). */
export function amqpQueueUrl(queue: string, base = AMQP_URL): string {
  const url = new URL(base);
  return `amqp://${url.username}:${url.password}@${url.hostname}:${url.port || 5672}/?routingKey=${queue}`;
}

export function natsSubjectUrl(subject: string, base = NATS_URL): string {
  const url = new URL(base);
  const auth = url.username !== '' ? `${url.username}${url.password !== '' ? `:${url.password}` : ''}@` : '';
  return `nats://${auth}${url.hostname}:${url.port || 4222}?subject=${subject}`;
}

/** AMQP headers as a plain string record (amqplib may hand long strings back as Buffers). */
export function stringHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {}))
    out[k] = Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
  return out;
}
