import { describe, expect, it } from 'vitest';
import { onAbort } from './abort-fanout.js';

describe('onAbort', () => {
  it('calls every subscribed callback once, through one listener on the signal', () => {
    const controller = new AbortController();
    let added = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++;
      add(...args);
    }) as typeof add;
    const calls: number[] = [];
    for (let i = 0; i < 50; i++) onAbort(controller.signal, () => calls.push(i));
    expect(added).toBe(1);
    controller.abort();
    controller.abort();
    expect(calls).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('does not call an unsubscribed callback, and unsubscribing after the abort is harmless', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    const offA = onAbort(controller.signal, () => calls.push('a'));
    const offB = onAbort(controller.signal, () => calls.push('b'));
    offA();
    controller.abort();
    offB();
    expect(calls).toEqual(['b']);
  });

  it('calls the callback at once for a signal that has already aborted', () => {
    const calls: string[] = [];
    const off = onAbort(AbortSignal.abort(), () => calls.push('now'));
    expect(calls).toEqual(['now']);
    off();
  });

  it('lets a callback unsubscribe another one during the abort without skipping the rest', () => {
    const controller = new AbortController();
    const calls: string[] = [];
    let offC = (): void => {};
    onAbort(controller.signal, () => {
      calls.push('a');
      offC();
    });
    onAbort(controller.signal, () => calls.push('b'));
    offC = onAbort(controller.signal, () => calls.push('c'));
    controller.abort();
    expect(calls).toEqual(['a', 'b']);
  });

  it('starts afresh on a signal after its abort: a later subscriber is called at once', () => {
    const controller = new AbortController();
    onAbort(controller.signal, () => {});
    controller.abort();
    const calls: string[] = [];
    onAbort(controller.signal, () => calls.push('late'));
    expect(calls).toEqual(['late']);
  });
});
