/**
 * The handlers a delivery runs: the `handlers` map, `receiver.on(name, …)` and `onAny` listeners
 * for contract events; `onUnknown` listeners (and an `unknownEvent` function) for verified
 * deliveries the contract does not define; `preHandle` before any of them. Composed once per event
 * name and cached until a listener is added; one handler and no `preHandle` runs as is.
 */
import { type AnyHandler, isThenable } from './handler-event.js';

/** The listener keys of `onAny` and `onUnknown` (no event name holds a NUL character). */
export const ANY = '\u0000any';
export const UNKNOWN = '\u0000unknown';

export interface Listeners {
  /** Adds a listener of an event name, `ANY` (every contract event) or `UNKNOWN`. */
  add(key: string, handler: AnyHandler): void;
  /** The composed handler of a contract event (undefined: an unknown one), or undefined if none. */
  handlerFor(name: string | undefined): AnyHandler | undefined;
}

function compose(pre: AnyHandler | undefined, list: readonly AnyHandler[]): AnyHandler | undefined {
  if (list.length === 0) return undefined;
  const steps = pre === undefined ? list : [pre, ...list];
  if (steps.length === 1) return steps[0];
  return (event) => {
    for (let i = 0; i < steps.length; i++) {
      const out = (steps[i] as AnyHandler)(event);
      if (isThenable(out)) {
        // The first pending step: the rest run after it, in order.
        return (async () => {
          await out;
          for (let j = i + 1; j < steps.length; j++) await (steps[j] as AnyHandler)(event);
        })();
      }
    }
    return undefined;
  };
}

export function listeners(
  handlers: { readonly [event: string]: AnyHandler | undefined },
  preHandle: AnyHandler | undefined,
): Listeners {
  const added = new Map<string, AnyHandler[]>();
  const cache = new Map<string, AnyHandler | undefined>();
  const of = (key: string): AnyHandler[] => added.get(key) ?? [];
  return {
    add(key, handler) {
      added.set(key, [...of(key), handler]);
      cache.clear();
    },
    handlerFor(name) {
      const key = name ?? UNKNOWN;
      if (cache.has(key)) return cache.get(key);
      // Own keys only: an event named `constructor` with no handler must not run Object's constructor.
      const mapped = name !== undefined && Object.hasOwn(handlers, name) ? handlers[name] : undefined;
      const list =
        name === undefined
          ? of(UNKNOWN)
          : [...(mapped === undefined ? [] : [mapped]), ...of(name), ...of(ANY)];
      const composed = compose(preHandle, list);
      cache.set(key, composed);
      return composed;
    },
  };
}
