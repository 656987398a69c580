/**
 * The ack-fast worker fires the receiver's hooks and spans like the inline paths: `received`, then
 * `processed` / `rejected` / `duplicate` (with `source: 'queue'`, the attempt and a duration) per
 * run of a queued event, and a CONSUMER span `webhook process` per run that continues the
 * sender's stored `traceparent`, with validate, claim and handle children. Spans are recorded with
 * the SDK's in-memory exporter; the queue is a real SQLite one.
 */
import * as api from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { otelTracing } from '../../runtime/otel/otel-tracing.js';
import { ackFastQueue } from '../../runtime/receive/ack-fast-mode.js';
import type { ReceiverHooks } from '../../runtime/receive/hooks.js';
import { receiverHooks } from '../../runtime/receive/receiver-hooks.js';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import { adopted, delivery, petstore, SECRET } from './fixtures.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

function observedReceiver(handler: (petId: string) => void) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracing = otelTracing(api, {
    tracer: provider.getTracer('test'),
    propagator: new W3CTraceContextPropagator(),
  });
  const calls: [string, Record<string, unknown>][] = [];
  const record =
    (name: string) =>
    (info: object): void =>
      void calls.push([name, { ...info }]);
  const hooks: ReceiverHooks = {
    received: record('received'),
    verified: record('verified'),
    duplicate: record('duplicate'),
    processed: record('processed'),
    rejected: record('rejected'),
  };
  const receiver = createReceiver(petstore, {
    secret: SECRET,
    store: sqliteStore(new Database(':memory:')),
    ackFast: ackFastQueue({ worker: { backoff: () => 0 } }),
    hooks: receiverHooks(hooks),
    tracing,
    logger: { info() {}, warn() {}, error() {} },
    handlers: { 'pet.adopted': (event) => handler(event.data.petId) },
  });
  return { receiver, calls, exporter };
}

const traced = (id: string) => {
  const d = delivery('pet.adopted', adopted(), { id });
  return { ...d, headers: { ...d.headers, traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } };
};

const fromQueue = (calls: [string, Record<string, unknown>][]) =>
  calls.filter(([, info]) => info['source'] === 'queue');

describe('ack-fast worker: hooks and spans', () => {
  it('a processed, a failed-then-processed and a duplicate run each fire hooks with durations', async () => {
    let failNext = true;
    const { receiver, calls } = observedReceiver((petId) => {
      if (petId === 'rex' && failNext) {
        failNext = false;
        throw new Error('flaky downstream');
      }
    });
    expect((await receiver.handle(traced('evt_q1'))).outcome).toBe('queued');
    // The request itself: received, verified, processed as queued — none of them from the queue.
    expect(calls.map(([name, info]) => `${name}:${info['outcome'] ?? ''}`)).toEqual([
      'received:',
      'verified:',
      'processed:queued',
    ]);
    calls.length = 0;

    await receiver.drain(); // first run fails, the retry (backoff 0) processes it
    expect(fromQueue(calls).map(([name, info]) => [name, info['attempt'], info['outcome'] ?? null])).toEqual([
      ['received', 1, null],
      ['rejected', 1, 'failed'],
      ['received', 2, null],
      ['processed', 2, 'processed'],
    ]);
    expect(calls.filter(([name]) => name === 'verified')).toEqual([]);
    const [, rejected] = calls[1] as [string, Record<string, unknown>];
    expect(rejected).toMatchObject({
      id: 'evt_q1',
      type: 'pet.adopted',
      code: 'handler_failed',
      status: 500,
    });
    for (const [name, info] of calls) {
      if (name !== 'received') expect(info['durationMs']).toBeGreaterThanOrEqual(0);
    }
    expect(calls[0]?.[1]).toEqual({ source: 'queue', attempt: 1, id: 'evt_q1', type: 'pet.adopted' });

    // A provider retry after processing is queued again and then recognised as a duplicate.
    calls.length = 0;
    expect((await receiver.handle(traced('evt_q1'))).outcome).toBe('queued');
    await receiver.drain();
    expect(fromQueue(calls).map(([name]) => name)).toEqual(['received', 'duplicate']);
    expect(fromQueue(calls)[1]?.[1]).toMatchObject({ id: 'evt_q1', type: 'pet.adopted', source: 'queue' });
    await receiver.stop();
  });

  it('each run is a CONSUMER span `webhook process` continuing the stored traceparent', async () => {
    let failNext = true;
    const { receiver, exporter } = observedReceiver(() => {
      if (failNext) {
        failNext = false;
        throw new Error('flaky downstream');
      }
    });
    await receiver.handle(traced('evt_q2'));
    await receiver.drain();
    const spans = exporter.getFinishedSpans();
    const runs = spans.filter((s) => s.name === 'webhook process');
    expect(runs).toHaveLength(2);
    const [failed, ok] = runs as [ReadableSpan, ReadableSpan];
    for (const span of runs) {
      expect(span.kind).toBe(api.SpanKind.CONSUMER);
      expect(span.spanContext().traceId).toBe(TRACE_ID);
      expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
    }
    expect(failed.attributes).toMatchObject({
      'webhook.id': 'evt_q2',
      'webhook.type': 'pet.adopted',
      'webhook.attempt': 1,
      'webhook.outcome': 'failed',
      'webhook.error.code': 'handler_failed',
    });
    expect(failed.status.code).toBe(api.SpanStatusCode.ERROR);
    expect(ok.attributes).toMatchObject({ 'webhook.attempt': 2, 'webhook.outcome': 'processed' });
    expect(ok.status.code).toBe(api.SpanStatusCode.OK);
    const children = (parent: ReadableSpan) =>
      spans.filter((s) => s.parentSpanContext?.spanId === parent.spanContext().spanId).map((s) => s.name);
    expect(children(ok)).toEqual(['webhook validate', 'webhook claim', 'webhook handle']);
    const failedHandle = spans.find(
      (s) => s.name === 'webhook handle' && s.parentSpanContext?.spanId === failed.spanContext().spanId,
    );
    expect(failedHandle?.status.code).toBe(api.SpanStatusCode.ERROR);
    // The request's own span is still there, beside the runs, in the same trace.
    const [request] = spans.filter((s) => s.name === 'webhook receive');
    expect(request?.attributes['webhook.outcome']).toBe('queued');
    expect(request?.spanContext().traceId).toBe(TRACE_ID);
    await receiver.stop();
  });
});
