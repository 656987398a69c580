/**
 * The handlers a delivery runs: the `handlers` map, `receiver.on(name, …)` and `onAny` listeners
 * for contract events; `onUnknown` listeners (and an `unknownEvent` function) for verified
 * deliveries the contract does not define; `preHandle` before any of them. Composed once per event
 * name and cached until a listener is added; one handler and no `preHandle` runs as is.
 */
import { type AnyHandler, isThenable } from './handler-event.js';

export interface ListenerSources {
  readonly handlers: { readonly [event: string]: AnyHandler | undefined };
  readonly unknownHandler: AnyHandler | undefined;
  readonly preHandle: AnyHandler | undefined;
}

const UNKNOWN = '\u0000unknown';

function compose(pre: AnyHandler | undefined, list: readonly AnyHandler[]): AnyHandler | undefined {
  if (list.length === 0) return undefined;
  const steps = pre === undefined ? list : [pre, ...list];
  if (steps.length === 1) return steps[0];
  // Sequential, in registration order; the first failure fails the delivery (and its retry runs all again).
  return (event) => {
    for (let i = 0; i < steps.length; i++) {
      const out = (steps[i] as AnyHandler)(event);
      if (isThenable(out)) {
        return (async () => {
          await out;
          for (let j = i + 1; j < steps.length; j++) await (steps[j] as AnyHandler)(event);
        })();
      }
    }
    return undefined;
  };
}

export class Listeners {
  readonly #sources: ListenerSources;
  readonly #byEvent = new Map<string, AnyHandler[]>();
  readonly #any: AnyHandler[] = [];
  readonly #unknown: AnyHandler[] = [];
  readonly #cache = new Map<string, AnyHandler | undefined>();

  constructor(sources: ListenerSources) {
    this.#sources = sources;
  }

  on(name: string, handler: AnyHandler): void {
    const list = this.#byEvent.get(name) ?? [];
    list.push(handler);
    this.#byEvent.set(name, list);
    this.#cache.clear();
  }

  onAny(handler: AnyHandler): void {
    this.#any.push(handler);
    this.#cache.clear();
  }

  onUnknown(handler: AnyHandler): void {
    this.#unknown.push(handler);
    this.#cache.clear();
  }

  /** The composed handler of a contract event (undefined: an unknown one), or undefined if none. */
  handlerFor(name: string | undefined): AnyHandler | undefined {
    const key = name ?? UNKNOWN;
    if (this.#cache.has(key)) return this.#cache.get(key);
    const { handlers, unknownHandler, preHandle } = this.#sources;
    const list: AnyHandler[] = [];
    if (name === undefined) {
      if (unknownHandler !== undefined) list.push(unknownHandler);
      list.push(...this.#unknown);
    } else {
      // Own keys only: an event named `constructor` with no handler must not run Object's constructor.
      const mapped = Object.hasOwn(handlers, name) ? handlers[name] : undefined;
      if (mapped !== undefined) list.push(mapped);
      list.push(...(this.#byEvent.get(name) ?? []), ...this.#any);
    }
    const composed = compose(preHandle, list);
    this.#cache.set(key, composed);
    return composed;
  }
}
