/**
 * `receiver.consumeJetStream(consumer, options)`: a JetStream pull consumer drained through the
 * receive pipeline. Each message's data is the signed HTTP body and its headers the HTTP headers, so
 * it is verified, validated, claimed, handled and marked done as an HTTP delivery, then acked.
 *
 * A handler failure is `nak(delay)` (redelivered by the server; `info.redeliveryCount` is the attempt)
 * until `maxAttempts`, then dead-lettered; a message that fails verification or validation is
 * dead-lettered at once. Dead-lettering is `term()`, after `deadLetter` (when given) stored a copy —
 * JetStream keeps no dead-letter queue of its own. A long handler keeps its message with `working()`.
 */

import type { Consumption, JetStreamConsumeOptions } from './consume-types.js';
import { consumeLimits, type InlineHandle, inFlight, verdictOf } from './consume-verdict.js';
import type { JetStreamConsumer, JetStreamMessage } from './nats-driver.js';

const defaultDelay = (attempt: number): number => Math.min(60_000, 1000 * 2 ** Math.max(0, attempt - 1));

export async function consumeJetStream(
  handle: InlineHandle,
  consumer: JetStreamConsumer,
  options: JetStreamConsumeOptions = {},
): Promise<Consumption> {
  const { prefetch, maxAttempts } = consumeLimits(options, 'consumeJetStream');
  const delay = options.retryDelayMs ?? defaultDelay;
  const workingEvery = options.workingEveryMs ?? 10_000;
  const work = inFlight();
  const messages = await consumer.consume({ max_messages: prefetch });
  let stopping = false;

  const settle = async (message: JetStreamMessage): Promise<void> => {
    const headers: Record<string, string> = {};
    for (const [name, values] of message.headers ?? []) headers[name.toLowerCase()] = values.join(', ');
    const attempt = message.info.redeliveryCount;
    const working = setInterval(() => message.working(), workingEvery);
    try {
      const result = await handle({ method: 'POST', headers, body: message.data });
      const verdict = verdictOf(result, attempt, maxAttempts);
      if (verdict === 'ack') message.ack();
      else if (verdict === 'retry') message.nak(delay(attempt));
      else {
        const reason = result.error?.code ?? result.outcome;
        await options.deadLetter?.(message, reason);
        // No reason text: servers before 2.10 do not parse `+TERM <reason>` and redeliver.
        message.term();
      }
    } finally {
      clearInterval(working);
    }
  };

  // At most `prefetch` messages run at once: the loop waits for a free slot before taking the next.
  const slots = new Set<Promise<void>>();
  const loop = (async () => {
    for await (const message of messages) {
      if (stopping) break;
      const running: Promise<void> = settle(message).catch(() => {
        // Not acked: the server redelivers it after its ack wait.
      });
      slots.add(running);
      work.track(running);
      void running.finally(() => slots.delete(running));
      if (slots.size >= prefetch) await Promise.race(slots);
    }
  })();

  return {
    stop: async ({ timeoutMs = 30_000 } = {}) => {
      stopping = true;
      await messages.close();
      await loop.catch(() => undefined);
      await work.settle(timeoutMs);
    },
  };
}
