/**
 * A handler that fails must never be answered 2xx: the sender would stop, and the event is lost.
 * The receiver answers 500 `handler_failed` (no handler detail in the body) for every way a handler
 * can fail — a sync throw, a rejected promise, a thrown non-Error, a throwing catch-all — with
 * `dedupe: false` (no store: the path that once had no claim to release) as with a store, over real
 * HTTP on 127.0.0.1 through `receiver.node()` and `receiver.fetch` (on @hono/node-server), and the
 * runtime's sender retries the 500 until the handler succeeds.
 */
import http from 'node:http';
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createSender } from '../../runtime/deliver/sender.js';
import type { WebhookError } from '../../runtime/errors.js';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import type { ErrorContext, Receiver } from '../../runtime/receive/types.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import { adopted, delivery, type PetstoreEvents, petstore, SECRET } from '../receiver/fixtures.js';
import { type Listening, listen, post } from '../receiver/http.js';

const SECRET_DETAIL = 'password=hunter2';

/** Ways a handler fails; `undefined` once the handler is told to succeed. */
const failures = {
  'sync throw': () => {
    throw new Error(SECRET_DETAIL);
  },
  'rejected promise': async () => {
    await Promise.resolve();
    throw new Error(SECRET_DETAIL);
  },
  'thrown string': () => {
    throw SECRET_DETAIL;
  },
  'rejected with undefined': () => Promise.reject(undefined),
  'rejecting thenable': () => ({
    // biome-ignore lint/suspicious/noThenProperty: a non-Promise thenable is what the test needs.
    then: (_ok: unknown, fail: (e: unknown) => void) => fail(new Error(SECRET_DETAIL)),
  }),
} as const;
type Failure = keyof typeof failures;

const configs = {
  'dedupe: false': () => ({ dedupe: false as const }),
  'memory store': () => ({ store: memoryStore() }),
  'sqlite store, transactional': () => ({
    store: sqliteStore(new Database(':memory:')),
    transactional: true,
  }),
} as const;
type Config = keyof typeof configs;

interface Harness {
  readonly receiver: Receiver<PetstoreEvents>;
  /** Handler runs so far. */
  readonly calls: () => number;
  /** Make the handler (and the catch-all) succeed from now on. */
  heal(): void;
  readonly errors: { code: string; context: ErrorContext }[];
}

function harness(config: Config, failure: Failure): Harness {
  let calls = 0;
  let failing = true;
  const errors: { code: string; context: ErrorContext }[] = [];
  const run = () => {
    calls++;
    return failing ? failures[failure]() : undefined;
  };
  const receiver = createReceiver(petstore, {
    secret: SECRET,
    ...(configs[config]() as { dedupe: false }),
    onError: (error: WebhookError, context: ErrorContext) => errors.push({ code: error.code, context }),
    handlers: { 'pet.adopted': run },
    unknownEvent: run,
  });
  return {
    receiver,
    calls: () => calls,
    heal: () => {
      failing = false;
    },
    errors,
  };
}

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** The receiver behind a real server on 127.0.0.1: its node:http listener, or its fetch on @hono/node-server. */
async function serveReceiver(receiver: Receiver<PetstoreEvents>, via: 'node' | 'fetch'): Promise<string> {
  if (via === 'node') {
    const listening: Listening = await listen(http.createServer(receiver.node()));
    closers.push(() => listening.close());
    return `${listening.url}/hooks`;
  }
  const server = await new Promise<http.Server>((resolve) => {
    const s = serve({ fetch: receiver.fetch, port: 0, hostname: '127.0.0.1' }, () =>
      resolve(s as http.Server),
    );
  });
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}/hooks`;
}

function expectHandlerFailed(answer: { status: number; body: string }): void {
  expect(answer.status).toBe(500);
  expect(JSON.parse(answer.body)).toEqual({
    error: {
      code: 'handler_failed',
      message: 'The webhook handler failed; a retry of this delivery will process it again.',
    },
  });
  expect(answer.body).not.toContain('hunter2');
}

describe.each(Object.keys(configs) as Config[])(
  '%s: a failing handler is answered 500, never 2xx',
  (config) => {
    describe.each(['node', 'fetch'] as const)('over HTTP via receiver.%s', (via) => {
      it.each(Object.keys(failures) as Failure[])(
        '%s: 500 handler_failed, and the retry runs it again',
        async (failure) => {
          const h = harness(config, failure);
          const url = await serveReceiver(h.receiver, via);
          const d = delivery('pet.adopted', adopted());

          expectHandlerFailed(await post(url, d));
          expectHandlerFailed(await post(url, d));
          expect(h.calls()).toBe(2);
          expect(h.errors.map((e) => [e.code, e.context.outcome])).toEqual([
            ['handler_failed', 'failed'],
            ['handler_failed', 'failed'],
          ]);

          // The provider's next retry, once the handler works: processed (not "already processed").
          h.heal();
          const healed = await post(url, d);
          expect(healed.status).toBe(200);
          expect(JSON.parse(healed.body)).toEqual({ status: 'processed' });
          expect(h.calls()).toBe(3);
          if (config !== 'dedupe: false') {
            expect(JSON.parse((await post(url, d)).body)).toEqual({ status: 'already processed' });
            expect(h.calls()).toBe(3);
          }
        },
      );
    });

    it('a throwing unknownEvent catch-all is answered 500 too (receiver.handle)', async () => {
      const h = harness(config, 'sync throw');
      const result = await h.receiver.handle(delivery('pet.vanished', { petId: 'x' }));
      expect(result).toMatchObject({ status: 500, outcome: 'failed', type: 'pet.vanished' });
      expect(result.error?.code).toBe('handler_failed');
      expectHandlerFailed(result);
      expect(h.calls()).toBe(1);
    });
  },
);

describe('the sender retries a failing handler', () => {
  it('dedupe: false, node:http: sendNow sees 500, 500, then 200 and the handler ran three times', async () => {
    let calls = 0;
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      dedupe: false,
      handlers: {
        'pet.adopted': async () => {
          calls++;
          if (calls < 3) throw new Error(SECRET_DETAIL);
        },
      },
    });
    const url = await serveReceiver(receiver, 'node');
    const waits: number[] = [];
    const sender = createSender(petstore, {
      urlPolicy: { allowHttpHosts: ['127.0.0.1'], allowAddresses: ['127.0.0.1'] },
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const result = await sender.sendNow('pet.adopted', adopted(), { url, secret: SECRET });
    expect(result.attempts.map((a) => a.status)).toEqual([500, 500, 200]);
    expect(result.attempts.slice(0, 2).map((a) => a.classification.outcome)).toEqual(['retry', 'retry']);
    expect(result.delivered).toBe(true);
    expect(waits).toHaveLength(2);
    expect(calls).toBe(3);
  });
});
