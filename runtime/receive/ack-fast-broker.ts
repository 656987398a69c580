/**
 * ack-fast on a broker: `ackFastAmqp(confirmChannel, queue)` / `ackFastJetStream(js, subject, headers)`
 * as the receiver's `ackFast`. The HTTP side verifies and validates a delivery, publishes the exact
 * signed body with its headers (the message format of broker destinations), and answers 2xx only
 * once the broker confirmed it; any number of receiver instances publish to one queue, and workers
 * drain it with `receiver.consumeAmqp` / `consumeJetStream`, which verify again (the broker is not
 * trusted more than the network) and claim each event in the idempotency store.
 */

import { WebhookError } from '../errors.js';
import type { AckFastDeps, AckFastMode } from './ack-fast-mode.js';
import type { AmqpConfirmChannel } from './amqp-driver.js';
import { headerRecord } from './handler-event.js';
import type { JetStreamPublisher, NatsHeaders } from './nats-driver.js';
import { statusResult } from './respond.js';
import { storeFailure } from './run-context.js';
import type { AckFast, ReceiveResult } from './types.js';

/** A verified delivery to publish: its id, signed body and the headers worth keeping. */
interface Outgoing {
  readonly id: string;
  readonly body: Uint8Array;
  readonly headers: Record<string, string>;
}

// Transport headers of the HTTP hop, meaningless on a message.
const HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

function brokerMode(publish: (out: Outgoing, timeoutMs: number) => Promise<unknown>): AckFast {
  const mode: AckFastMode = {
    mode: 'ack-fast',
    build: (deps: AckFastDeps) => ({
      accept: async (_x, id, headers, ids, body): Promise<ReceiveResult> => {
        const all = headerRecord(headers as Parameters<typeof headerRecord>[0]);
        const kept: Record<string, string> = {};
        for (const name of Object.keys(all)) if (!HOP.has(name)) kept[name] = all[name] as string;
        await publish({ id, body, headers: kept }, deps.storeTimeoutMs).catch((error) => {
          throw storeFailure(error);
        });
        const ack = deps.acknowledgement;
        return ack === undefined
          ? statusResult(200, 'queued', 'queued', ids)
          : { status: ack.status, headers: { ...ack.headers }, body: ack.body, outcome: 'queued', ...ids };
      },
    }),
  };
  return mode;
}

/** Rejects after `ms`: a broker that never confirms must not hold the sender's request forever. */
function within<T>(ms: number, what: string, work: (settle: (error: unknown) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: no confirm within ${ms} ms`)), ms);
    work((error) => {
      clearTimeout(timer);
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve(undefined as T);
    });
  });
}

/** amqplib wants a Buffer; the runtime holds bytes (no node:buffer import in the Web entry). */
function content(bytes: Uint8Array): Uint8Array {
  const B = (globalThis as { Buffer?: { from(b: ArrayBufferLike, o: number, l: number): Uint8Array } })
    .Buffer;
  return B === undefined ? bytes : B.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** ack-fast onto a RabbitMQ queue; `channel` must be a confirm channel (`createConfirmChannel()`). */
export function ackFastAmqp(channel: AmqpConfirmChannel, queue: string): AckFast {
  if (typeof channel?.sendToQueue !== 'function' || typeof queue !== 'string' || queue === '') {
    throw new WebhookError(
      'invalid_config',
      'ackFastAmqp(channel, queue): a confirm channel and a queue name',
      {
        details: { option: 'ackFast', expected: 'ackFastAmqp(confirmChannel, queueName)' },
      },
    );
  }
  return brokerMode((out, ms) =>
    within(ms, 'ackFastAmqp', (settle) => {
      channel.sendToQueue(
        queue,
        content(out.body),
        {
          headers: out.headers,
          messageId: out.id,
          persistent: true,
          contentType: out.headers['content-type'] ?? 'application/json',
        },
        (error) => settle(error),
      );
    }),
  );
}

/** ack-fast onto a JetStream subject; `headers` is the `headers` function of the `nats` package. */
export function ackFastJetStream(
  js: JetStreamPublisher,
  subject: string,
  headers: () => NatsHeaders,
): AckFast {
  if (typeof js?.publish !== 'function' || typeof subject !== 'string' || typeof headers !== 'function') {
    throw new WebhookError(
      'invalid_config',
      'ackFastJetStream(js, subject, headers): a JetStream client, a subject and nats `headers`',
      { details: { option: 'ackFast', expected: 'ackFastJetStream(nc.jetstream(), subject, headers)' } },
    );
  }
  return brokerMode((out, ms) => {
    const h = headers();
    for (const name of Object.keys(out.headers)) h.set(name, out.headers[name] as string);
    // The publish resolves with the stream's ack (its confirm); msgID lets the stream drop a resend.
    return within(ms, 'ackFastJetStream', (settle) => {
      js.publish(subject, out.body, { msgID: out.id, headers: h }).then(() => settle(undefined), settle);
    });
  });
}
