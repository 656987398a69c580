/**
 * NATS JetStream destinations over the user's `nats` client:
 * `nats://user:pass@host:4222?subject=webhooks.pet` (a bare `nats://token@host` is a token). The
 * attempt succeeds on JetStream's publish ack only — a stream stored the message — and the message
 * id (`Nats-Msg-Id`) is the webhook id, so a retry after a lost ack is dropped by the stream's
 * duplicate window instead of being stored twice. No stream on the subject, a timeout or a lost
 * connection is a failed attempt, retried on the schedule.
 */
import type { NatsConnectOptions, NatsHeaders, NatsModule } from '../../drivers/nats.js';
import { WebhookError } from '../../errors.js';
import type { ResolvedTarget } from '../url-policy.js';
import type { Destination, DestinationFactory, DestinationMessage } from './destination.js';

/** The `subject` query parameter (required). */
export function natsSubject(url: URL): string {
  const subject = url.searchParams.get('subject') ?? '';
  if (subject === '' || /[\s*>]/.test(subject)) {
    throw new WebhookError('invalid_url', 'A nats: destination names ?subject= (no wildcards)', {
      details: { param: 'subject' },
    });
  }
  return subject;
}

/** `createWorker({ destinations: [natsDestination(nats)] })`, with `import * as nats from 'nats'`. */
export function natsDestination<H extends NatsHeaders>(nats: NatsModule<H>): DestinationFactory {
  if (typeof nats?.connect !== 'function' || typeof nats.headers !== 'function') {
    throw new WebhookError('invalid_config', 'natsDestination(nats): expected the nats module', {
      details: { option: 'nats' },
    });
  }
  return {
    schemes: ['nats:'],
    open: (target, options) => openNats(nats, target, options.timeoutMs),
    classify: (error) =>
      /AUTHORIZATION_VIOLATION|Authorization Violation/i.test(String((error as Error)?.message ?? error))
        ? 'fail'
        : 'retry',
  };
}

async function openNats<H extends NatsHeaders>(
  nats: NatsModule<H>,
  target: ResolvedTarget,
  timeoutMs: number,
): Promise<Destination> {
  const { url } = target;
  const subject = natsSubject(url);
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  const host = target.family === 6 ? `[${target.address}]` : target.address;
  const options: NatsConnectOptions = {
    // The checked address, not the name: a second DNS answer cannot redirect the connection.
    servers: `${host}:${url.port === '' ? 4222 : url.port}`,
    timeout: timeoutMs,
    // No silent reconnect loop: a lost connection fails its attempts now and the pool reopens it.
    reconnect: false,
    name: 'gen-webhooks',
    ...(user !== '' && pass !== '' ? { user, pass } : user !== '' ? { token: user } : {}),
  };
  const connection = await nats.connect(options);
  const js = connection.jetstream();
  return {
    get closed() {
      return connection.isClosed();
    },
    async publish(message: DestinationMessage, signal: AbortSignal) {
      const headers = nats.headers();
      for (const [name, value] of Object.entries(message.headers)) headers.set(name, value);
      signal.throwIfAborted();
      await js.publish(subject, new TextEncoder().encode(message.body), {
        msgID: message.id,
        headers,
        timeout: timeoutMs,
      });
    },
    async close() {
      if (!connection.isClosed()) await connection.close().catch(() => {});
    },
  };
}
