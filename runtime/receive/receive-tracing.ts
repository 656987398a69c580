/**
 * `receiveTracing(tracer)`: a tracer of the span protocol (`ReceiveTracing`: a span per delivery,
 * child spans per phase) made the receiver's `tracing` observer. Each delivery gets a span, phases
 * verify, validate, claim and handle, its id and type as attributes and its outcome at the end.
 * `otelTracing(api)` is built with it. A tracer that throws never changes an answer.
 */
import type { DeliverySpan, ReceiveTracing } from '../otel/types.js';
import { endSpan, inPhase, phaseOf, tracedHandler } from './trace-phases.js';
import type { DeliverySteps, ReceiveObserver } from './types.js';

/** The steps of one delivery inside `span`. */
function spanSteps(span: DeliverySpan, steps: DeliverySteps): DeliverySteps {
  return {
    verify: (input) => inPhase(span, 'verify', () => steps.verify(input)),
    check: (name, data, pointer, ids) =>
      inPhase(span, 'validate', () => steps.check(name, data, pointer, ids)),
    // The claim phase ends when the handler starts (or the run returns: a duplicate, a lost claim).
    run: async (event, handler, onRun) => {
      const endClaim = phaseOf(span, 'claim');
      const result = await steps.run(event, tracedHandler(handler, span), () => {
        endClaim();
        onRun?.();
      });
      endClaim();
      return result;
    },
    identified: (id, type, unknown) => {
      try {
        span.setAttributes({
          'webhook.id': id,
          'webhook.type': type,
          ...(unknown ? { 'webhook.unknown': true } : {}),
        });
      } catch {
        // Observability must not change the answer.
      }
      steps.identified?.(id, type, unknown);
    },
    done: (result) => {
      endSpan(span, result);
      steps.done?.(result);
    },
  };
}

export function receiveTracing(tracer: ReceiveTracing): ReceiveTracing & ReceiveObserver {
  const startProcessing = tracer.startProcessing?.bind(tracer);
  return {
    startDelivery: (headers) => tracer.startDelivery(headers),
    ...(startProcessing === undefined ? {} : { startProcessing }),
    start(request, steps) {
      let span: DeliverySpan | undefined;
      try {
        span = tracer.startDelivery(request.headers);
      } catch {
        // A broken tracer must not change the answer.
      }
      return span === undefined ? steps : spanSteps(span, steps);
    },
  };
}
