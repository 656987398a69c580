/**
 * receiver.on / onAny / onUnknown / preHandle, the `logger` and the lifecycle `hooks`, over a real
 * node:http receiver on 127.0.0.1.
 */
import http from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ReceiverHooks, ReceiverLogger } from '../../runtime/receive/hooks.js';
import { receiverHooks } from '../../runtime/receive/receiver-hooks.js';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import type { Receiver } from '../../runtime/receive/types.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { adopted, delivery, type PetstoreEvents, petstore, SECRET } from './fixtures.js';
import { type Listening, listen, post } from './http.js';

const open: Listening[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
  vi.restoreAllMocks();
});

async function serve(receiver: Receiver<PetstoreEvents>): Promise<string> {
  const server = await listen(http.createServer(receiver.node()));
  open.push(server);
  return server.url;
}

function recordingLogger() {
  const calls: { level: string; fields: Record<string, unknown>; message: string }[] = [];
  const logger: ReceiverLogger = {
    info: (fields, message) => void calls.push({ level: 'info', fields, message }),
    warn: (fields, message) => void calls.push({ level: 'warn', fields, message }),
    error: (fields, message) => void calls.push({ level: 'error', fields, message }),
  };
  return { logger, calls };
}

describe('on / onAny / onUnknown / preHandle', () => {
  it('runs the map handler, then on() handlers, then onAny, after preHandle, in order', async () => {
    const order: string[] = [];
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      handlers: { 'pet.adopted': (e) => void order.push(`map:${e.data.petId}`) },
      preHandle: (e) => void order.push(`pre:${e.type}`),
    })
      .on('pet.adopted', async (e) => {
        await new Promise((r) => setTimeout(r, 5));
        order.push(`on:${e.data.adopter.name}`);
      })
      .onAny((e) => void order.push(`any:${e.type}`));
    const url = await serve(receiver);
    const answer = await post(url, delivery('pet.adopted', adopted('rex')));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: 'processed' });
    expect(order).toEqual(['pre:pet.adopted', 'map:rex', 'on:Ada', 'any:pet.adopted']);
    order.length = 0;
    expect((await post(url, delivery('pet.listed', { petId: 'p', price: 3 }))).status).toBe(200);
    expect(order).toEqual(['pre:pet.listed', 'any:pet.listed']);
  });

  it('an on() handler added after creation counts: the event is processed, not ignored', async () => {
    const receiver = createReceiver(petstore, { secret: SECRET, store: memoryStore() });
    const url = await serve(receiver);
    expect(JSON.parse((await post(url, delivery('pet.adopted', adopted()))).body)).toEqual({
      status: 'ignored',
    });
    const seen: string[] = [];
    receiver.on('pet.adopted', (e) => void seen.push(e.data.petId));
    expect(JSON.parse((await post(url, delivery('pet.adopted', adopted('b')))).body)).toEqual({
      status: 'processed',
    });
    expect(seen).toEqual(['b']);
  });

  it('a failing on() handler or preHandle fails the delivery (500) and releases the claim', async () => {
    let fail = true;
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      logger: recordingLogger().logger,
      preHandle: () => {
        if (fail) throw new Error('not yet');
      },
    }).on('pet.adopted', () => {});
    const url = await serve(receiver);
    const d = delivery('pet.adopted', adopted());
    const first = await post(url, d);
    expect(first.status).toBe(500);
    expect(JSON.parse(first.body).error.code).toBe('handler_failed');
    fail = false;
    expect((await post(url, d)).status).toBe(200);
  });

  it('onUnknown (option and method) gets verified deliveries of unknown types, deduped', async () => {
    const seen: string[] = [];
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      onUnknown: (e) => void seen.push(`option:${e.type}`),
    }).onUnknown((e) => void seen.push(`method:${(e.data as { n: number }).n}`));
    const url = await serve(receiver);
    const d = delivery('pet.sold', { n: 7 });
    const answer = await post(url, d);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: 'processed' });
    expect(seen).toEqual(['option:pet.sold', 'method:7']);
    expect(JSON.parse((await post(url, d)).body)).toEqual({ status: 'already processed' });
    // An unverified one never reaches it.
    const forged = await post(url, { headers: d.headers, body: d.body.replace('7', '8') });
    expect(forged.status).toBe(401);
    expect(seen).toHaveLength(2);
  });

  it("unknownEvent 'reject' answers 400 and does not call onUnknown", async () => {
    const onUnknown = vi.fn();
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      unknownEvent: 'reject',
      onUnknown,
    });
    const url = await serve(receiver);
    expect((await post(url, delivery('pet.sold', {}))).status).toBe(400);
    expect(onUnknown).not.toHaveBeenCalled();
  });

  it('without onUnknown an ignored unknown type is a logged warning, never a silent 200', async () => {
    const { logger, calls } = recordingLogger();
    const receiver = createReceiver(petstore, { secret: SECRET, store: memoryStore(), logger });
    const url = await serve(receiver);
    const answer = await post(url, delivery('pet.sold', {}, { id: 'msg_unknown_1' }));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: 'ignored' });
    expect(calls).toEqual([
      {
        level: 'warn',
        fields: { id: 'msg_unknown_1', type: 'pet.sold' },
        message: expect.stringContaining('unknown type "pet.sold"'),
      },
    ]);
  });
});

describe('logger', () => {
  it('gets structured calls and nothing goes to the console when one is given', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { logger, calls } = recordingLogger();
    const receiver = createReceiver(petstore, { secret: SECRET, store: memoryStore(), logger }).on(
      'pet.adopted',
      () => {
        throw new Error('boom');
      },
    );
    const url = await serve(receiver);
    await post(url, delivery('pet.sold', {}));
    await post(url, delivery('pet.adopted', adopted(), { id: 'msg_boom' }));
    expect(calls.map((c) => c.level)).toEqual(['warn', 'error']);
    expect(calls[1]?.fields).toEqual({
      code: 'handler_failed',
      status: 500,
      id: 'msg_boom',
      type: 'pet.adopted',
    });
    expect(warn).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
  });

  it('defaults to the console', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const receiver = createReceiver(petstore, { secret: SECRET, store: memoryStore() });
    const url = await serve(receiver);
    await post(url, delivery('pet.sold', {}));
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('[gen-webhooks]'), expect.any(Object));
  });
});

describe('hooks', () => {
  it('fire with durations: received, verified, processed, duplicate, rejected with the code', async () => {
    const events: { hook: string; info: Record<string, unknown> }[] = [];
    const record =
      (hook: string) =>
      (info: object): void =>
        void events.push({ hook, info: info as Record<string, unknown> });
    const hooks: ReceiverHooks = {
      received: record('received'),
      verified: record('verified'),
      duplicate: record('duplicate'),
      processed: record('processed'),
      rejected: record('rejected'),
    };
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      hooks: receiverHooks(hooks),
      logger: recordingLogger().logger,
    }).on('pet.adopted', async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
    const url = await serve(receiver);
    const d = delivery('pet.adopted', adopted(), { id: 'msg_hooks' });
    await post(url, d);
    await post(url, d);
    await post(url, { headers: d.headers, body: d.body.replace('Ada', 'Eve') });
    expect(events.map((e) => e.hook)).toEqual([
      'received',
      'verified',
      'processed',
      'received',
      'verified',
      'duplicate',
      'received',
      'rejected',
    ]);
    const processed = events[2]?.info;
    expect(processed).toMatchObject({ id: 'msg_hooks', type: 'pet.adopted', outcome: 'processed' });
    expect(processed?.durationMs).toBeGreaterThanOrEqual(19);
    expect(events[1]?.info.durationMs).toBeGreaterThanOrEqual(0);
    expect(events[0]?.info).toMatchObject({ method: 'POST', url: expect.stringContaining('127.0.0.1') });
    expect(events[5]?.info).toMatchObject({ id: 'msg_hooks', type: 'pet.adopted' });
    expect(events[7]?.info).toMatchObject({ code: 'invalid_signature', status: 401, outcome: 'rejected' });
  });

  it('a throwing hook does not change the answer', async () => {
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      hooks: receiverHooks({
        received: () => {
          throw new Error('x');
        },
        processed: () => {
          throw new Error('y');
        },
      }),
    }).on('pet.adopted', () => {});
    const url = await serve(receiver);
    expect((await post(url, delivery('pet.adopted', adopted()))).status).toBe(200);
  });
});
