/**
 * `receiver.consumeAmqp(channel, queue, options)`: a RabbitMQ queue drained through the receive
 * pipeline. Each message's body is the signed HTTP body and its `properties.headers` the HTTP headers
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`, …), so it is verified, validated, claimed,
 * handled and marked done exactly as an HTTP delivery, then acked.
 *
 * Dead-lettering is the queue's: a message that fails verification or validation, or whose handler
 * failed `maxAttempts` times, is nacked without requeue, so the queue must declare
 * `x-dead-letter-exchange` (else RabbitMQ drops it). Attempts are counted by the consumer, not the
 * broker (classic queues carry no delivery count): a failed message is republished to the tail of
 * the queue with `x-gen-webhooks-attempt` and the original acked after it, on the same channel, so a
 * dropped connection loses both or neither.
 */

import { WebhookError } from '../errors.js';
import type { AmqpChannel, AmqpMessage } from './amqp-driver.js';
import type { ConsumeOptions, Consumption } from './consume-types.js';
import {
  consumeLimits,
  headerText,
  type InlineHandle,
  inFlight,
  spendsAttempt,
  verdictOf,
} from './consume-verdict.js';

/** The header that carries the attempts a republished message already spent. */
export const ATTEMPT_HEADER = 'x-gen-webhooks-attempt';

export async function consumeAmqp(
  handle: InlineHandle,
  channel: AmqpChannel,
  queue: string,
  options: ConsumeOptions = {},
): Promise<Consumption> {
  if (typeof queue !== 'string' || queue === '') {
    throw new WebhookError('invalid_config', 'consumeAmqp: `queue` must be a queue name', {
      details: { option: 'queue', expected: 'a non-empty string' },
    });
  }
  const { prefetch, maxAttempts } = consumeLimits(options, 'consumeAmqp');
  const work = inFlight();
  // Bounds unacked messages per consumer: never more than `prefetch` handlers run at once.
  await channel.prefetch(prefetch);

  const settle = async (message: AmqpMessage): Promise<void> => {
    const raw = message.properties.headers ?? {};
    const headers: Record<string, string> = {};
    for (const name of Object.keys(raw)) {
      const text = headerText(raw[name]);
      if (text !== undefined) headers[name.toLowerCase()] = text;
    }
    const spent = Number(headers[ATTEMPT_HEADER] ?? 0) || 0;
    const attempt = spent + 1;
    const result = await handle({ method: 'POST', headers, body: message.content });
    const verdict = verdictOf(result, attempt, maxAttempts);
    if (verdict === 'ack') channel.ack(message);
    else if (verdict === 'dead-letter') channel.nack(message, false, false);
    else {
      const next = spendsAttempt(result) ? attempt : spent;
      const props = message.properties;
      channel.sendToQueue(queue, message.content, {
        headers: { ...raw, [ATTEMPT_HEADER]: next },
        persistent: true,
        ...(typeof props.messageId === 'string' ? { messageId: props.messageId } : {}),
        ...(typeof props.contentType === 'string' ? { contentType: props.contentType } : {}),
      });
      channel.ack(message);
    }
  };

  const { consumerTag } = await channel.consume(queue, (message) => {
    // null: the broker cancelled the consumer (queue deleted); nothing to settle.
    if (message === null) return;
    work.track(
      settle(message).catch(() => {
        // The channel closed mid-settle: the broker redelivers the unacked message.
      }),
    );
  });

  return {
    stop: async ({ timeoutMs = 30_000 } = {}) => {
      await channel.cancel(consumerTag).catch(() => undefined);
      await work.settle(timeoutMs);
    },
  };
}
