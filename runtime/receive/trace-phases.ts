/**
 * Child spans of one delivery's span, shared by the request path and the ack-fast worker: a phase
 * ends once (the claim phase ends when the handler starts or when the run returns), and a handler
 * runs inside a `handle` span.
 */
import type { DeliverySpan } from '../otel/types.js';
import { type AnyHandler, isThenable } from './handler-event.js';

export function phaseOf(span: DeliverySpan | undefined, name: 'verify' | 'validate' | 'claim' | 'handle') {
  const phase = span?.phase(name);
  let open = phase !== undefined;
  return (error?: unknown): void => {
    if (!open) return;
    open = false;
    phase?.end(error);
  };
}

/**
 * `work` inside one phase span, ended with the error when it throws or rejects. A synchronous value
 * stays synchronous (Node's verification adds no promise).
 */
export function inPhase<T>(
  span: DeliverySpan | undefined,
  name: 'verify' | 'validate',
  work: () => T | Promise<T>,
): T | Promise<T> {
  const end = phaseOf(span, name);
  const fail = (error: unknown): never => {
    end(error);
    throw error;
  };
  try {
    const value = work();
    if (isThenable(value)) {
      return value.then((done) => {
        end();
        return done;
      }, fail);
    }
    end();
    return value;
  } catch (error) {
    return fail(error);
  }
}

export function tracedHandler(handler: AnyHandler, span: DeliverySpan): AnyHandler {
  return (event) => {
    const end = phaseOf(span, 'handle');
    let out: unknown;
    try {
      out = handler(event);
    } catch (error) {
      end(error);
      throw error;
    }
    if (!isThenable(out)) {
      end();
      return out;
    }
    return Promise.resolve(out).then(
      (value) => {
        end();
        return value;
      },
      (error: unknown) => {
        end(error);
        throw error;
      },
    );
  };
}

/** Ends a delivery span with its result's outcome and error; a broken tracer never changes an answer. */
export function endSpan(
  span: DeliverySpan | undefined,
  result: { readonly outcome: string; readonly error?: { code: string; status: number; message: string } },
): void {
  if (span === undefined) return;
  try {
    span.end(
      result.outcome,
      result.error === undefined
        ? undefined
        : { code: result.error.code, status: result.error.status, message: result.error.message },
    );
  } catch {
    // Observability must not change the answer.
  }
}
