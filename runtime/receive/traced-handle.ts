/**
 * `receiver.handle`: the pipeline wrapped in the receiver's hooks (received, result) and its
 * delivery span; without either, the pipeline itself.
 */

import type { DeliverySpan, ReceiveTracing } from '../otel/types.js';
import type { ReceiverHooks } from './hooks.js';
import { reportResult, safely } from './observe.js';
import type { Receive } from './receive-request.js';
import { endSpan } from './trace-phases.js';
import type { ReceiveRequest, ReceiveResult } from './types.js';

export function tracedHandle(
  receive: Receive,
  hooks: ReceiverHooks | undefined,
  tracing: ReceiveTracing | undefined,
): (request: ReceiveRequest) => Promise<ReceiveResult> {
  return async (request) => {
    if (hooks === undefined && tracing === undefined) return receive(request, undefined);
    const started = performance.now();
    if (hooks?.received !== undefined) {
      safely(hooks.received, {
        ...(request.method === undefined ? {} : { method: request.method }),
        ...(request.url === undefined ? {} : { url: request.url }),
      });
    }
    let span: DeliverySpan | undefined;
    try {
      span = tracing?.startDelivery(request.headers);
    } catch {
      // A broken tracer must not change the answer.
    }
    const result = await receive(request, span);
    if (hooks !== undefined) reportResult(hooks, result, started);
    endSpan(span, result);
    return result;
  };
}
