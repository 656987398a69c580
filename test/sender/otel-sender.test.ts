/**
 * The sender's OpenTelemetry, end to end over real HTTP on 127.0.0.1 with the SDK's in-memory span
 * exporter and metric exporter: `send()` (plain and inside a transaction) opens a PRODUCER span whose
 * traceparent is stored with the message; each outbox attempt is a CLIENT span continuing it — not the
 * worker's own context — and the receiver's SERVER span is a child of that attempt. Metrics count
 * attempts, their duration, deliveries by outcome and dead letters.
 */
import path from 'node:path';
import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSender } from '../../runtime/deliver/sender.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { otelMetrics } from '../../runtime/otel/otel-metrics.js';
import { otelTracing } from '../../runtime/otel/otel-tracing.js';
import { setSendMetrics, setSendTracing } from '../../runtime/otel/send-hooks.js';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { adopted, petstore, SECRET } from '../receiver/fixtures.js';
import { LOCAL, outboxFixtures, startServer, type TestServer, tempDir } from './helpers.js';

const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
const tracer = tracerProvider.getTracer('test');
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({
  exporter: metricExporter,
  exportIntervalMillis: 3_600_000,
});
const meterProvider = new MeterProvider({ readers: [reader] });
const contextManager = new AsyncLocalStorageContextManager();
const tracing = otelTracing(api, { tracer, propagator: new W3CTraceContextPropagator() });

beforeAll(() => {
  api.context.setGlobalContextManager(contextManager.enable());
  setSendTracing(tracing);
  setSendMetrics(otelMetrics(api, { meter: meterProvider.getMeter('test') }));
});
afterAll(async () => {
  setSendTracing(undefined);
  setSendMetrics(undefined);
  api.context.disable();
  await meterProvider.shutdown();
});

const open: TestServer[] = [];
afterEach(async () => {
  spans.reset();
  await Promise.all(open.splice(0).map((server) => server.close()));
});

/** A receiver with tracing behind a switch: the first `refuse` requests get `status` instead. */
async function customer(refuse = 0, status = 503) {
  const handled: string[] = [];
  const receiver = createReceiver(petstore, {
    secret: SECRET,
    store: memoryStore(),
    tracing,
    logger: { info() {}, warn() {}, error() {} },
  }).on('pet.adopted', (event) => void handled.push(event.id));
  const node = receiver.node();
  let seen = 0;
  const server = await startServer((req, res) => {
    if (++seen <= refuse) {
      req.resume();
      res.writeHead(status).end();
    } else node(req, res);
  });
  open.push(server);
  return { server, handled };
}

async function provider(url: string, retry = { kind: 'list' as const, delays: [0, 0] }) {
  const file = path.join(tempDir('otel'), 'outbox.db');
  const outbox = sqliteOutbox(file);
  await outbox.createEndpoint({ url: `${url}/hooks`, events: ['*'], secret: SECRET }, Date.now());
  const sender = createSender(petstore, { outbox });
  const worker = createWorker({ outbox, contract: petstore, retry, urlPolicy: LOCAL });
  return { file, outbox, sender, worker };
}

/** Runs the worker under a span of its own: attempts must not land in this trace. */
const poll = (worker: { runOnce(): Promise<unknown> }) =>
  tracer.startActiveSpan('worker poll', async (span) => {
    await worker.runOnce();
    span.end();
    return span.spanContext();
  });

const named = (name: string) => spans.getFinishedSpans().filter((s) => s.name === name);
const parentOf = (span: ReadableSpan | undefined) => span?.parentSpanContext?.spanId;

async function metric(name: string): Promise<DataPoint<number | Histogram>[]> {
  await reader.forceFlush();
  const last = metricExporter.getMetrics().at(-1);
  const found = last?.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  return (found?.dataPoints ?? []) as DataPoint<number | Histogram>[];
}
const sumWhere = (points: DataPoint<number | Histogram>[], attributes: Record<string, unknown>) =>
  points
    .filter((p) => Object.entries(attributes).every(([k, v]) => p.attributes[k] === v))
    .reduce((total, p) => total + (typeof p.value === 'number' ? p.value : p.value.count), 0);

describe('sender OpenTelemetry', () => {
  it("an outbox attempt continues the send() call's trace, and the receiver continues the attempt", async () => {
    const { server, handled } = await customer(1);
    const { sender, worker, outbox } = await provider(server.url);
    const app = await tracer.startActiveSpan('POST /pets/1/adopt', async (span) => {
      await sender.send('pet.adopted', adopted(), { id: 'msg_otel_trace' });
      span.end();
      return span.spanContext();
    });
    const workerContext = await poll(worker);
    expect(handled).toEqual(['msg_otel_trace']);

    const [enqueue] = named('webhook enqueue');
    expect(enqueue?.kind).toBe(api.SpanKind.PRODUCER);
    expect(enqueue?.spanContext().traceId).toBe(app.traceId);
    expect(parentOf(enqueue)).toBe(app.spanId);
    expect(enqueue?.attributes).toMatchObject({
      'webhook.id': 'msg_otel_trace',
      'webhook.type': 'pet.adopted',
      'webhook.in_transaction': false,
      'webhook.deliveries': 1,
    });

    const attempts = named('webhook send');
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) {
      expect(attempt.kind).toBe(api.SpanKind.CLIENT);
      expect(attempt.spanContext().traceId).toBe(app.traceId);
      expect(attempt.spanContext().traceId).not.toBe(workerContext.traceId);
      expect(parentOf(attempt)).toBe(enqueue?.spanContext().spanId);
    }
    const [first, second] = attempts;
    expect(first?.attributes).toMatchObject({
      'webhook.id': 'msg_otel_trace',
      'webhook.type': 'pet.adopted',
      'webhook.attempt': 1,
      'server.address': '127.0.0.1',
      'server.port': server.port,
      'url.scheme': 'http',
      'http.request.method': 'POST',
      'http.response.status_code': 503,
      'webhook.outcome': 'retry',
      'error.type': 'http_error',
    });
    expect(first?.status.code).toBe(api.SpanStatusCode.ERROR);
    expect(second?.attributes).toMatchObject({
      'webhook.attempt': 2,
      'http.response.status_code': 200,
      'webhook.outcome': 'succeeded',
    });
    expect(second?.attributes['error.type']).toBeUndefined();

    // Only the second attempt reached the receiver: its span is that attempt's child.
    const [receive] = named('webhook receive');
    expect(receive?.spanContext().traceId).toBe(app.traceId);
    expect(parentOf(receive)).toBe(second?.spanContext().spanId);
    await outbox.close();
  });

  it('send() inside the caller’s transaction is traced too, and a rolled-back send leaves no trace context behind', async () => {
    const { server, handled } = await customer();
    const { sender, worker, outbox, file } = await provider(server.url);
    await outbox.init();
    const db = new Database(file);
    try {
      await tracer.startActiveSpan('rolled back', async (span) => {
        db.exec('BEGIN');
        await sender.send('pet.adopted', adopted(), { id: 'msg_otel_rollback', tx: db });
        db.exec('ROLLBACK');
        span.end();
      });
      const app = await tracer.startActiveSpan('committed', async (span) => {
        db.exec('BEGIN');
        await sender.send('pet.adopted', adopted(), { id: 'msg_otel_tx', tx: db });
        db.exec('COMMIT');
        span.end();
        return span.spanContext();
      });
      await poll(worker);
      expect(handled).toEqual(['msg_otel_tx']);
      const enqueues = named('webhook enqueue');
      expect(enqueues.map((s) => s.attributes['webhook.in_transaction'])).toEqual([true, true]);
      const [attempt] = named('webhook send');
      expect(named('webhook send')).toHaveLength(1);
      expect(attempt?.spanContext().traceId).toBe(app.traceId);
      expect(parentOf(attempt)).toBe(enqueues[1]?.spanContext().spanId);
      expect(parentOf(named('webhook receive')[0])).toBe(attempt?.spanContext().spanId);
    } finally {
      db.close();
      await outbox.close();
    }
  });

  const postgres = outboxFixtures.find((f) => f.name === 'postgres');
  it.skipIf(postgres?.skip ?? true)(
    'PostgreSQL: send() in the caller’s BEGIN … COMMIT carries the trace to the attempt',
    async () => {
      const { server, handled } = await customer();
      const { outbox, raw, cleanup } = await (postgres as NonNullable<typeof postgres>).create('otel');
      const { pool } = raw as { pool: import('pg').Pool };
      try {
        await outbox.createEndpoint(
          { url: `${server.url}/hooks`, events: ['*'], secret: SECRET },
          Date.now(),
        );
        const sender = createSender(petstore, { outbox });
        const app = await tracer.startActiveSpan('pg write', async (span) => {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            await sender.send('pet.adopted', adopted(), { id: 'msg_otel_pg', tx: client });
            await client.query('COMMIT');
          } finally {
            client.release();
          }
          span.end();
          return span.spanContext();
        });
        await poll(createWorker({ outbox, contract: petstore, urlPolicy: LOCAL }));
        expect(handled).toEqual(['msg_otel_pg']);
        const [enqueue] = named('webhook enqueue');
        const [attempt] = named('webhook send');
        expect(enqueue?.attributes['webhook.in_transaction']).toBe(true);
        expect(attempt?.spanContext().traceId).toBe(app.traceId);
        expect(parentOf(attempt)).toBe(enqueue?.spanContext().spanId);
        expect(parentOf(named('webhook receive')[0])).toBe(attempt?.spanContext().spanId);
      } finally {
        await outbox.close();
        await cleanup();
      }
    },
  );

  it('metrics: attempts by outcome, attempt duration, deliveries by outcome and dead letters', async () => {
    const before = {
      attempts: await metric('webhook.attempts'),
      deliveries: await metric('webhook.deliveries'),
      dead: await metric('webhook.dead_letters'),
      duration: await metric('webhook.attempt.duration'),
    };
    const delta = async (name: string, key: keyof typeof before, attributes: Record<string, unknown>) =>
      sumWhere(await metric(name), attributes) - sumWhere(before[key], attributes);

    const flaky = await customer(1); // 503, then 200
    const a = await provider(flaky.server.url);
    await a.sender.send('pet.adopted', adopted());
    await poll(a.worker);
    const refusing = await customer(1, 400); // a final failure: dead at once
    const b = await provider(refusing.server.url);
    await b.sender.send('pet.adopted', adopted());
    const broken = await customer(2); // 503 twice: the schedule runs out
    const c = await provider(broken.server.url);
    await c.sender.send('pet.adopted', adopted());
    await poll(b.worker);
    await poll(c.worker);

    const pet = { 'webhook.type': 'pet.adopted', 'server.address': '127.0.0.1' };
    expect(await delta('webhook.attempts', 'attempts', { ...pet, 'webhook.outcome': 'retry' })).toBe(2);
    expect(await delta('webhook.attempts', 'attempts', { 'webhook.outcome': 'succeeded' })).toBe(1);
    expect(await delta('webhook.attempts', 'attempts', { 'webhook.outcome': 'dead' })).toBe(2);
    expect(
      await delta('webhook.attempts', 'attempts', {
        'http.response.status_code': 400,
        'error.type': 'http_error',
      }),
    ).toBe(1);
    expect(await delta('webhook.attempt.duration', 'duration', pet)).toBe(5);
    const durations = (await metric('webhook.attempt.duration')).map((p) => p.value as Histogram);
    expect(durations.every((h) => (h.min ?? 0) > 0 && (h.max ?? 0) < 5)).toBe(true); // seconds
    expect(await delta('webhook.deliveries', 'deliveries', { ...pet, 'webhook.outcome': 'succeeded' })).toBe(
      1,
    );
    expect(await delta('webhook.deliveries', 'deliveries', { ...pet, 'webhook.outcome': 'dead' })).toBe(2);
    expect(await delta('webhook.dead_letters', 'dead', pet)).toBe(2);
    // Low cardinality: no message, delivery or endpoint ids on any point.
    for (const name of ['webhook.attempts', 'webhook.deliveries', 'webhook.dead_letters']) {
      for (const point of await metric(name)) {
        expect(
          Object.keys(point.attributes).filter((k) => k === 'webhook.id' || k.includes('endpoint')),
        ).toEqual([]);
      }
    }
    await Promise.all([a.outbox.close(), b.outbox.close(), c.outbox.close()]);
  });

  it('metrics: sendNow counts its deliveries, succeeded or failed (it has no dead letters)', async () => {
    const pet = { 'webhook.type': 'pet.adopted', 'server.address': '127.0.0.1' };
    const count = async (outcome: string) =>
      sumWhere(await metric('webhook.deliveries'), { ...pet, 'webhook.outcome': outcome });
    const before = { succeeded: await count('succeeded'), failed: await count('failed') };
    const dead = sumWhere(await metric('webhook.dead_letters'), pet);
    const sender = createSender(petstore, { urlPolicy: LOCAL });
    const ok = await customer(1); // 503, then 200
    const refusing = await customer(1, 400); // a final failure
    const retry = { kind: 'list' as const, delays: [0, 0] }; // two attempts
    const sent = await sender.sendNow('pet.adopted', adopted(), {
      url: `${ok.server.url}/hooks`,
      secret: SECRET,
      retry,
    });
    const refused = await sender.sendNow('pet.adopted', adopted(), {
      url: `${refusing.server.url}/hooks`,
      secret: SECRET,
      retry,
    });
    expect([sent.delivered, refused.delivered]).toEqual([true, false]);
    expect((await count('succeeded')) - before.succeeded).toBe(1);
    expect((await count('failed')) - before.failed).toBe(1);
    expect(sumWhere(await metric('webhook.dead_letters'), pet)).toBe(dead);
  });

  it('a tracer or meter that throws never stops a send or a delivery', async () => {
    const { server, handled } = await customer();
    const { sender, worker, outbox } = await provider(server.url);
    const boom = () => {
      throw new Error('telemetry down');
    };
    setSendTracing({ startAttempt: boom, startEnqueue: boom });
    setSendMetrics({ recordAttempt: boom, recordDelivery: boom });
    try {
      await sender.send('pet.adopted', adopted(), { id: 'msg_otel_broken' });
      expect((await worker.runOnce()).succeeded).toBe(1);
      expect(handled).toEqual(['msg_otel_broken']);
    } finally {
      setSendTracing(tracing);
      setSendMetrics(otelMetrics(api, { meter: meterProvider.getMeter('test') }));
      await outbox.close();
    }
  });
});
