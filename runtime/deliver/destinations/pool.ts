/**
 * Open destinations per endpoint URL and checked address, reused across attempts: a broker
 * connection costs a TCP + protocol handshake, a publish a round trip. A destination that reports
 * itself closed, or whose publish timed out (a half-open connection looks just like that), is dropped
 * and reopened on the next attempt, after the URL policy checked the address again.
 */
import { WebhookError } from '../../errors.js';
import { onAbort } from '../abort-fanout.js';
import type { ResolvedTarget } from '../url-policy.js';
import type {
  Destination,
  DestinationFactory,
  DestinationMessage,
  DestinationVerdict,
} from './destination.js';

export class DestinationPool {
  readonly #byScheme = new Map<string, DestinationFactory>();
  readonly #open = new Map<string, Promise<Destination>>();

  constructor(factories: readonly DestinationFactory[]) {
    for (const [i, factory] of factories.entries()) {
      if (typeof factory?.open !== 'function' || !Array.isArray(factory.schemes)) {
        throw new WebhookError(
          'invalid_config',
          `destinations[${i}] must be a DestinationFactory ({ schemes, open }), e.g. amqpDestination(amqplib)`,
        );
      }
      for (const scheme of factory.schemes) this.#byScheme.set(scheme, factory);
    }
  }

  classify(url: URL, error: unknown): DestinationVerdict {
    if (error instanceof WebhookError && error.code === 'timeout') return 'retry';
    return this.#byScheme.get(url.protocol)?.classify?.(error) ?? 'retry';
  }

  async publish(
    target: ResolvedTarget,
    message: DestinationMessage,
    timeoutMs: number,
    stop?: AbortSignal,
  ): Promise<void> {
    const factory = this.#byScheme.get(target.url.protocol);
    if (!factory) {
      throw new WebhookError(
        'invalid_config',
        `No destination for ${target.url.protocol} URLs: pass createWorker({ destinations: [...] })`,
        { details: { option: 'destinations', scheme: target.url.protocol } },
      );
    }
    const key = `${target.url.href}\u0000${target.address}`;
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new WebhookError('timeout', `No broker confirm within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const unlisten = stop ? onAbort(stop, () => controller.abort(stop.reason)) : undefined;
    let destination: Destination | undefined;
    try {
      let opening = this.#open.get(key);
      if (!opening) {
        opening = factory.open(target, { timeoutMs });
        this.#open.set(key, opening);
        const mine = opening;
        mine.catch(() => {
          if (this.#open.get(key) === mine) this.#open.delete(key);
        });
      }
      destination = await abortable(opening, controller.signal);
      await abortable(destination.publish(message, controller.signal), controller.signal);
    } catch (error) {
      if (destination === undefined || destination.closed || controller.signal.aborted) this.#drop(key);
      throw error;
    } finally {
      clearTimeout(timer);
      unlisten?.();
    }
    if (destination.closed) this.#drop(key);
  }

  #drop(key: string): void {
    const opening = this.#open.get(key);
    this.#open.delete(key);
    opening?.then((d) => d.close()).catch(() => {});
  }

  /** Closes every open destination (the worker's `stop`). */
  async close(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    await Promise.allSettled(all.map((opening) => opening.then((d) => d.close())));
  }
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const unlisten = onAbort(signal, () => reject(signal.reason));
    promise.then(
      (value) => {
        unlisten();
        resolve(value);
      },
      (error) => {
        unlisten();
        reject(error);
      },
    );
  });
}
