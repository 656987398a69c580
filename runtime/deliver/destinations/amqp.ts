/**
 * AMQP 0-9-1 destinations (RabbitMQ) over the user's amqplib:
 * `amqp[s]://user:pass@host:5672/vhost?exchange=events&routingKey=pet.adopted`. One connection and
 * one confirm channel per destination; every message is published `mandatory` and `persistent`, and
 * the attempt succeeds on the broker's ack only: a nack, a `basic.return` (no queue bound — a silent
 * drop otherwise), a closed channel (unknown exchange) or no confirm in time is a failed attempt.
 */

import type { AmqpConfirmChannel, Amqplib } from '../../drivers/amqplib.js';
import { WebhookError } from '../../errors.js';
import { onAbort } from '../abort-fanout.js';
import type { ResolvedTarget } from '../url-policy.js';
import type { Destination, DestinationFactory, DestinationMessage } from './destination.js';

export interface AmqpAddress {
  readonly vhost: string;
  readonly exchange: string;
  readonly routingKey: string;
}

/** The vhost (path, default `/`), `exchange` (default the default exchange) and `routingKey`. */
export function amqpAddress(url: URL): AmqpAddress {
  const path = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const exchange = url.searchParams.get('exchange') ?? '';
  const routingKey = url.searchParams.get('routingKey') ?? '';
  if (exchange === '' && routingKey === '') {
    throw new WebhookError(
      'invalid_url',
      'An amqp: destination names ?exchange= and/or ?routingKey= (the queue, on the default exchange)',
      { details: { param: 'routingKey' } },
    );
  }
  return { vhost: path === '' ? '/' : path, exchange, routingKey };
}

/** `createWorker({ destinations: [amqpDestination(amqplib)] })`, with `import amqplib from 'amqplib'`. */
export function amqpDestination(amqplib: Amqplib): DestinationFactory {
  if (typeof amqplib?.connect !== 'function') {
    throw new WebhookError('invalid_config', 'amqpDestination(amqplib): expected the amqplib module', {
      details: { option: 'amqplib' },
    });
  }
  return {
    schemes: ['amqp:', 'amqps:'],
    open: (target, options) => openAmqp(amqplib, target, options.timeoutMs),
    classify: (error) => (/ACCESS[-_]REFUSED|\b403\b/.test(messageOf(error)) ? 'fail' : 'retry'),
  };
}

async function openAmqp(amqplib: Amqplib, target: ResolvedTarget, timeoutMs: number): Promise<Destination> {
  const { url } = target;
  const address = amqpAddress(url);
  const tls = url.protocol === 'amqps:';
  const connection = await amqplib.connect(
    {
      protocol: tls ? 'amqps' : 'amqp',
      // The checked address, not the name: a second DNS answer cannot redirect the connection.
      hostname: target.address,
      port: url.port === '' ? (tls ? 5671 : 5672) : Number(url.port),
      username: decodeURIComponent(url.username) || 'guest',
      password: decodeURIComponent(url.password) || 'guest',
      vhost: address.vhost,
      heartbeat: 10,
    },
    { timeout: timeoutMs, ...(tls ? { servername: target.host } : {}) },
  );
  let closed = false;
  const pending = new Map<string, (error?: unknown) => void>();
  const returned = new Set<string>();
  const fail = (error: unknown) => {
    closed = true;
    for (const settle of pending.values())
      settle(error ?? new WebhookError('connection_failed', 'AMQP channel closed'));
    pending.clear();
  };
  connection.on('error', () => {});
  connection.on('close', (error) => fail(error));
  let channel: AmqpConfirmChannel;
  try {
    channel = await connection.createConfirmChannel();
  } catch (error) {
    await connection.close().catch(() => {});
    throw error;
  }
  // The broker sends basic.return before the ack of the same message: the ack then finds it here.
  channel.on('return', (message) => returned.add(String(message.properties.messageId)));
  // The broker's reason (404 NOT_FOUND: no such exchange) arrives as the channel's error, just after
  // amqplib failed the pending confirms with a bare "channel closed": the attempt records the reason.
  let channelError: unknown;
  channel.on('error', (error) => {
    channelError = error;
  });
  channel.on('close', (error) => fail(error));

  return {
    get closed() {
      return closed;
    },
    publish(message: DestinationMessage, signal: AbortSignal) {
      if (closed) return Promise.reject(new WebhookError('connection_failed', 'AMQP connection closed'));
      if (signal.aborted) return Promise.reject(signal.reason);
      return new Promise<void>((resolve, reject) => {
        let unlisten = (): void => {};
        const settle = (error?: unknown) => {
          if (pending.get(message.id) !== settle) return;
          pending.delete(message.id);
          unlisten();
          if (returned.delete(message.id)) {
            reject(
              new WebhookError(
                'connection_failed',
                `AMQP message unroutable: no queue bound for "${address.routingKey}"`,
                {
                  details: { exchange: address.exchange, routingKey: address.routingKey },
                },
              ),
            );
          } else if (error) setImmediate(() => reject(channelError ?? error));
          else resolve();
        };
        pending.set(message.id, settle);
        unlisten = onAbort(signal, () => {
          pending.delete(message.id);
          reject(signal.reason);
        });
        try {
          channel.publish(
            address.exchange,
            address.routingKey,
            Buffer.from(message.body, 'utf8'),
            {
              mandatory: true,
              persistent: true,
              messageId: message.id,
              contentType: message.headers['content-type'] ?? 'application/json',
              headers: { ...message.headers },
            },
            (error) => settle(error ?? undefined),
          );
        } catch (error) {
          settle(error);
        }
      });
    },
    async close() {
      closed = true;
      await channel.close().catch(() => {});
      await connection.close().catch(() => {});
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
