/**
 * One `abort` listener per signal, fanned out to a set of callbacks. Every in-flight attempt of a
 * worker watches the same stop signal; an EventTarget listener per attempt cost about 28 µs of CPU
 * per delivery at 32 in flight (adding and removing scans the signal's listener list), where a Set
 * entry costs next to nothing.
 */
const fanouts = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `callback` once when `signal` aborts (at once, synchronously, when it already has).
 * Returns the unsubscribe function; calling it after the abort is a no-op.
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  if (signal.aborted) {
    callback();
    return noop;
  }
  let callbacks = fanouts.get(signal);
  if (callbacks === undefined) {
    const set = new Set<() => void>();
    callbacks = set;
    fanouts.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        fanouts.delete(signal);
        for (const fn of set) fn(); // live: one unsubscribed meanwhile is skipped
        set.clear();
      },
      { once: true },
    );
  }
  const set = callbacks;
  set.add(callback);
  return () => void set.delete(callback);
}

function noop(): void {}
