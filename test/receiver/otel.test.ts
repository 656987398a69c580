/**
 * OpenTelemetry through `otelTracing(api)`: spans recorded with the SDK's in-memory exporter; a
 * sender attempt carries `traceparent` and the receiver's span continues that trace.
 */
import http from 'node:http';
import * as api from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { performAttempt, setSendTracing } from '../../runtime/deliver/perform-attempt.js';
import { compileUrlPolicy } from '../../runtime/deliver/url-policy.js';
import { otelTracing } from '../../runtime/otel/otel-tracing.js';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { adopted, delivery, petstore, SECRET } from './fixtures.js';
import { type Listening, listen, post } from './http.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracing = otelTracing(api, {
  tracer: provider.getTracer('test'),
  propagator: new W3CTraceContextPropagator(),
});

const open: Listening[] = [];
afterEach(async () => {
  setSendTracing(undefined);
  exporter.reset();
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function serve() {
  const seen: string[] = [];
  const receiver = createReceiver(petstore, {
    secret: SECRET,
    store: memoryStore(),
    tracing,
    logger: { info() {}, warn() {}, error() {} },
  }).on('pet.adopted', (event) => void seen.push(event.headers.traceparent ?? ''));
  const server = await listen(http.createServer(receiver.node()));
  open.push(server);
  return { url: server.url, seen };
}

const byName = (spans: readonly ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

describe('OpenTelemetry', () => {
  it('a span per delivery with verify, validate, claim and handle children and attributes', async () => {
    const { url } = await serve();
    const d = delivery('pet.adopted', adopted(), { id: 'msg_otel_1' });
    expect((await post(url, d)).status).toBe(200);
    expect((await post(url, { headers: d.headers, body: d.body.replace('Ada', 'Eve') })).status).toBe(401);
    const spans = exporter.getFinishedSpans();
    const roots = byName(spans, 'webhook receive');
    expect(roots).toHaveLength(2);
    const [ok, bad] = roots as [ReadableSpan, ReadableSpan];
    expect(ok.kind).toBe(api.SpanKind.SERVER);
    expect(ok.attributes).toMatchObject({
      'webhook.id': 'msg_otel_1',
      'webhook.type': 'pet.adopted',
      'webhook.outcome': 'processed',
    });
    expect(ok.status.code).toBe(api.SpanStatusCode.OK);
    const children = spans
      .filter((s) => s.parentSpanContext?.spanId === ok.spanContext().spanId)
      .map((s) => s.name);
    expect(children).toEqual(['webhook verify', 'webhook validate', 'webhook claim', 'webhook handle']);
    expect(bad.attributes).toMatchObject({
      'webhook.outcome': 'rejected',
      'webhook.error.code': 'invalid_signature',
    });
    expect(bad.status.code).toBe(api.SpanStatusCode.ERROR);
    const badVerify = spans.find((s) => s.parentSpanContext?.spanId === bad.spanContext().spanId);
    expect(badVerify?.name).toBe('webhook verify');
    expect(badVerify?.status.code).toBe(api.SpanStatusCode.ERROR);
  });

  it("a sender attempt sends traceparent and the receiver's span continues its trace", async () => {
    const { url, seen } = await serve();
    setSendTracing(tracing);
    const attempt = await performAttempt({
      url: `${url}/hooks`,
      secrets: [{ secret: SECRET, createdAt: 0 }],
      signature: petstore.signature,
      messageId: 'msg_otel_send',
      body: JSON.stringify({
        id: 'msg_otel_send',
        type: 'pet.adopted',
        timestamp: new Date().toISOString(),
        data: adopted(),
      }),
      headers: {},
      now: Date.now,
      policy: compileUrlPolicy({ allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1/32'] }),
      timeoutMs: 5000,
    });
    expect(attempt.status).toBe(200);
    const spans = exporter.getFinishedSpans();
    const [send] = byName(spans, 'webhook send');
    const [receive] = byName(spans, 'webhook receive');
    expect(send?.kind).toBe(api.SpanKind.CLIENT);
    expect(send?.attributes).toMatchObject({
      'webhook.id': 'msg_otel_send',
      'http.response.status_code': 200,
    });
    expect(seen[0]).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(seen[0]).toBe(`00-${send?.spanContext().traceId}-${send?.spanContext().spanId}-01`);
    expect(receive?.spanContext().traceId).toBe(send?.spanContext().traceId);
    expect(receive?.parentSpanContext?.spanId).toBe(send?.spanContext().spanId);
  });
});
