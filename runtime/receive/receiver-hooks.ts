/**
 * `receiverHooks(hooks)`: the receiver's lifecycle hooks (received, verified, duplicate, processed,
 * rejected, each with durations) as its `hooks` observer. The code that calls them lives here, so a
 * receiver without hooks carries none of it. A hook that throws never changes an answer.
 */
import { isThenable } from './handler-event.js';
import type { ReceiverHooks } from './hooks.js';
import { elapsed, reportResult, safely } from './observe.js';
import type { ReceiveObserver } from './types.js';

export function receiverHooks(hooks: ReceiverHooks): ReceiverHooks & ReceiveObserver {
  const { received, verified } = hooks;
  return {
    ...hooks,
    start(request, steps) {
      const started = performance.now();
      if (received !== undefined) {
        safely(received, {
          ...(request.method === undefined ? {} : { method: request.method }),
          ...(request.url === undefined ? {} : { url: request.url }),
        });
      }
      return {
        ...steps,
        // `verified` once the signature checks out, with the time verification took; a synchronous
        // verifier (node:crypto) stays synchronous.
        ...(verified === undefined
          ? {}
          : {
              verify: (input) => {
                const begun = performance.now();
                const fire = () => safely(verified, { durationMs: elapsed(begun) });
                const out = steps.verify(input);
                if (!isThenable(out)) {
                  fire();
                  return out;
                }
                return out.then((value) => {
                  fire();
                  return value;
                });
              },
            }),
        done: (result) => {
          reportResult(hooks, result, started);
          steps.done?.(result);
        },
      };
    },
  };
}
