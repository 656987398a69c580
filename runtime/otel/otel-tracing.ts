/**
 * OpenTelemetry for the receiver and the sender, from the `@opentelemetry/api` module the app passes
 * in (`import * as api from '@opentelemetry/api'; otelTracing(api)`). Typed structurally: the runtime
 * never imports the package, so it works without it installed.
 *
 * Receiver: a SERVER span `webhook receive` per delivery, continuing the sender's W3C `traceparent`,
 * with children `webhook verify|validate|claim|handle`; attributes `webhook.id`, `webhook.type`,
 * `webhook.outcome` (and `webhook.error.code`). The ack-fast worker: a CONSUMER span
 * `webhook process` per run of a queued event, continuing the same `traceparent`, children
 * `validate|claim|handle`. Sender: a PRODUCER span `webhook enqueue` per
 * `send()`, whose `traceparent` is stored with the message, and a CLIENT span `webhook send` per
 * attempt, a child of the stored context (or of the active one for `sendNow`), whose own context goes
 * out as `traceparent`.
 */
import { getHeader } from '../headers.js';
import { receiveTracing } from '../receive/receive-tracing.js';
import type { ReceiveObserver } from '../receive/types.js';
import type { HeadersInput } from '../signing/scheme.js';
import type { DeliverySpan, EnqueueSpan, ReceiveTracing, SendTracing, TraceAttributes } from './types.js';

type Context = unknown;
interface SpanLike {
  setAttributes(attributes: TraceAttributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: unknown): unknown;
  end(): void;
}
interface TracerLike {
  startSpan(
    name: string,
    options?: { kind?: number; attributes?: TraceAttributes },
    context?: Context,
  ): SpanLike;
}
interface PropagatorLike {
  extract(context: Context, carrier: unknown, getter: GetterLike): Context;
  inject(context: Context, carrier: unknown, setter: SetterLike): void;
}
interface GetterLike {
  keys(carrier: unknown): string[];
  get(carrier: unknown, key: string): string | undefined;
}
interface SetterLike {
  set(carrier: unknown, key: string, value: string): void;
}

/** The parts of `@opentelemetry/api` used here. */
export interface OtelApiLike {
  readonly trace: {
    getTracer(name: string, version?: string): TracerLike;
    setSpan(context: Context, span: SpanLike): Context;
  };
  readonly context: {
    active(): Context;
    with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
      context: Context,
      fn: F,
      thisArg?: ThisParameterType<F>,
      ...args: A
    ): ReturnType<F>;
  };
  readonly propagation: PropagatorLike;
}

export interface OtelTracingOptions {
  /** Default `api.trace.getTracer('gen-webhooks')`. */
  readonly tracer?: TracerLike;
  /** Default `api.propagation` (the globally registered propagator). */
  readonly propagator?: PropagatorLike;
}

// SpanKind and SpanStatusCode values of the API (stable since 1.0).
const SERVER = 1;
const CLIENT = 2;
const PRODUCER = 3;
const CONSUMER = 4;
const OK = 1;
const ERROR = 2;

const headerGetter: GetterLike = {
  keys: (carrier) => {
    const headers = carrier as HeadersInput;
    if (typeof (headers as Headers).forEach === 'function') {
      const names: string[] = [];
      (headers as Headers).forEach((_value, name) => void names.push(name));
      return names;
    }
    return Object.keys(headers as object).map((name) => name.toLowerCase());
  },
  get: (carrier, key) => getHeader(carrier as HeadersInput, key),
};
const recordSetter: SetterLike = {
  set: (carrier, key, value) => {
    (carrier as Record<string, string>)[key] = value;
  },
};

function fail(span: SpanLike, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: ERROR, message: error instanceof Error ? error.message : String(error) });
}

export function otelTracing(
  api: OtelApiLike,
  options: OtelTracingOptions = {},
): ReceiveTracing & SendTracing & ReceiveObserver {
  const tracer = options.tracer ?? api.trace.getTracer('gen-webhooks');
  const propagator = options.propagator ?? api.propagation;
  const deliverySpan = (name: string, kind: number, headers: HeadersInput): DeliverySpan => {
    const parent = propagator.extract(api.context.active(), headers, headerGetter);
    const span = tracer.startSpan(name, { kind }, parent);
    const inside = api.trace.setSpan(parent, span);
    return {
      phase(phase) {
        const child = tracer.startSpan(`webhook ${phase}`, {}, inside);
        return {
          end(error) {
            if (error !== undefined) fail(child, error);
            child.end();
          },
        };
      },
      setAttributes: (attributes) => void span.setAttributes(attributes),
      end(outcome, error) {
        span.setAttributes({
          'webhook.outcome': outcome,
          ...(error === undefined ? {} : { 'webhook.error.code': error.code }),
        });
        if (error !== undefined && error.status >= 400)
          span.setStatus({ code: ERROR, message: `${error.code}: ${error.message}` });
        else span.setStatus({ code: OK });
        span.end();
      },
    };
  };
  return {
    // The receiver's observer: its spans wrap each delivery's steps (receive-tracing.ts).
    ...receiveTracing({
      startDelivery: (headers) => deliverySpan('webhook receive', SERVER, headers),
      startProcessing: (headers) => deliverySpan('webhook process', CONSUMER, headers),
    }),
    startAttempt(headers, attributes, parentHeaders) {
      const active = api.context.active();
      const parent =
        parentHeaders === undefined ? active : propagator.extract(active, parentHeaders, headerGetter);
      const span = tracer.startSpan('webhook send', { kind: CLIENT, attributes }, parent);
      propagator.inject(api.trace.setSpan(parent, span), headers, recordSetter);
      return {
        end(status, error, more) {
          if (status !== undefined) span.setAttributes({ 'http.response.status_code': status });
          if (more !== undefined) span.setAttributes(more);
          if (error !== undefined) fail(span, error);
          else if (status !== undefined && status >= 400) span.setStatus({ code: ERROR });
          span.end();
        },
      };
    },
    startEnqueue(headers, attributes): EnqueueSpan {
      const active = api.context.active();
      const span = tracer.startSpan('webhook enqueue', { kind: PRODUCER, attributes }, active);
      const inside = api.trace.setSpan(active, span);
      propagator.inject(inside, headers, recordSetter);
      return {
        run: (work) => api.context.with(inside, work),
        end(error, more) {
          if (more !== undefined) span.setAttributes(more);
          if (error !== undefined) fail(span, error);
          span.end();
        },
      };
    },
  };
}
