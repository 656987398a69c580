/**
 * What a broker consumer does with one message once the receive pipeline answered it: the same
 * answer an HTTP sender would get, turned into ack / retry / dead-letter. Shared by consume-amqp.ts
 * and consume-jetstream.ts so both engines settle a message the same way.
 */
import { WebhookError } from '../errors.js';
import type { ConsumeOptions } from './consume-types.js';
import type { ReceiveRequest, ReceiveResult } from './types.js';

export type Verdict = 'ack' | 'retry' | 'dead-letter';

/** The receiver's pipeline, always run inline (never re-queued by ack-fast). */
export type InlineHandle = (request: ReceiveRequest) => Promise<ReceiveResult>;

export function consumeLimits(
  options: ConsumeOptions,
  who: string,
): { prefetch: number; maxAttempts: number } {
  const prefetch = options.prefetch ?? 16;
  const maxAttempts = options.maxAttempts ?? 5;
  for (const [name, value] of [
    ['prefetch', prefetch],
    ['maxAttempts', maxAttempts],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) {
      throw new WebhookError('invalid_config', `${who}: \`${name}\` must be a positive integer`, {
        details: { option: name, expected: 'a positive integer' },
      });
    }
  }
  return { prefetch, maxAttempts };
}

/**
 * `attempt` counts handler runs including this one. A 4xx (bad signature, stale timestamp, invalid
 * payload) never gets better: dead-lettered at once. A handler failure retries until `maxAttempts`;
 * a store outage or a claim held elsewhere retries without spending an attempt.
 */
export function verdictOf(result: ReceiveResult, attempt: number, maxAttempts: number): Verdict {
  if (result.status < 300) return 'ack';
  if (result.status < 500 && result.outcome !== 'in_progress') return 'dead-letter';
  if (result.error?.code === 'handler_failed' && attempt >= maxAttempts) return 'dead-letter';
  return 'retry';
}

/** Whether a retry spends an attempt (only a handler that ran and failed does). */
export function spendsAttempt(result: ReceiveResult): boolean {
  return result.error?.code === 'handler_failed';
}

/** Header values arrive as strings, Buffers (amqplib long strings), numbers or arrays: strings here. */
export function headerText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return new TextDecoder().decode(value);
  if (Array.isArray(value)) return value.map(headerText).join(', ');
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** Tracks in-flight work so `stop` can wait for it. */
export function inFlight(): {
  track: (work: Promise<unknown>) => void;
  settle: (timeoutMs: number) => Promise<void>;
} {
  const active = new Set<Promise<unknown>>();
  return {
    track: (work) => {
      active.add(work);
      void work.finally(() => active.delete(work));
    },
    settle: async (timeoutMs) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      await Promise.race([Promise.allSettled([...active]), deadline]);
      clearTimeout(timer);
    },
  };
}
