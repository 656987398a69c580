import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { adopted, delivery, type PetstoreEvents, petstore, SECRET } from '../../test/receiver/fixtures.js';
import type { Contract } from '../contract.js';
import { hmacScheme } from '../signing/hmac-scheme.js';
import { standardWebhookHeaders } from '../signing/standard-webhooks.js';
import { memoryStore } from '../stores/memory.js';
import { sqliteStore } from '../stores/sqlite.js';
import type { IdempotencyStore } from '../stores/types.js';
import { ackFastQueue } from './ack-fast-mode.js';
import { createReceiver } from './receiver-web.js';
import type { ReceivedEvent } from './types.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-receiver-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const json = (body: string): Record<string, unknown> => JSON.parse(body) as Record<string, unknown>;

function setup(extra: Partial<Parameters<typeof createReceiver<PetstoreEvents>>[1]> = {}) {
  const seen: ReceivedEvent<string, unknown, unknown>[] = [];
  const store = memoryStore();
  const receiver = createReceiver(petstore, {
    secret: SECRET,
    store,
    handlers: {
      'pet.adopted': (event) => {
        seen.push(event);
      },
      'pet.listed': (event) => {
        seen.push(event);
      },
    },
    ...extra,
  } as Parameters<typeof createReceiver<PetstoreEvents>>[1]);
  return { receiver, seen, store };
}

describe('createReceiver: pipeline', () => {
  it('verifies, validates and runs the handler once; a duplicate answers 200 without running it', async () => {
    const { receiver, seen } = setup();
    const d = delivery('pet.adopted', adopted());
    const first = await receiver.handle(d);
    expect(first).toMatchObject({ status: 200, outcome: 'processed', type: 'pet.adopted' });
    expect(json(first.body)).toEqual({ status: 'processed' });
    expect(seen).toHaveLength(1);
    const event = seen[0];
    expect(event).toMatchObject({ type: 'pet.adopted', data: adopted(), issues: [], tx: undefined });
    expect(event?.id).toBe(d.headers['webhook-id']);
    expect(event?.timestamp).toBeInstanceOf(Date);
    expect(event?.headers['webhook-id']).toBe(d.headers['webhook-id']);

    const again = await receiver.handle(d);
    expect(again).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(json(again.body)).toEqual({ status: 'already processed' });
    expect(seen).toHaveLength(1);
  });

  it('answers 401 for a bad signature and never reaches the handler', async () => {
    const { receiver, seen } = setup();
    const d = delivery('pet.adopted', adopted());
    const result = await receiver.handle({ headers: d.headers, body: d.body.replace('rex', 'max') });
    expect(result).toMatchObject({ status: 401, outcome: 'rejected' });
    expect(json(result.body)).toMatchObject({ error: { code: 'invalid_signature' } });
    const wrongKey = await receiver.handle(
      delivery('pet.adopted', adopted(), { secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
    );
    expect(wrongKey.status).toBe(401);
    expect(seen).toHaveLength(0);
  });

  it('answers 400 outside the replay window (injected clock)', async () => {
    const now = 1_800_000_000_000;
    const { receiver } = setup({ now: () => now });
    const old = delivery('pet.adopted', adopted(), { timestamp: now / 1000 - 301 });
    expect(json((await receiver.handle(old)).body)).toMatchObject({ error: { code: 'timestamp_too_old' } });
    const future = delivery('pet.adopted', adopted(), { timestamp: now / 1000 + 301 });
    const result = await receiver.handle(future);
    expect(result.status).toBe(400);
    expect(json(result.body)).toMatchObject({ error: { code: 'timestamp_too_new' } });
    expect(
      (await receiver.handle(delivery('pet.adopted', adopted(), { timestamp: now / 1000 - 300 }))).status,
    ).toBe(200);
  });

  it('answers 400 for a signed body that is not JSON or not an envelope', async () => {
    const { receiver } = setup();
    const send = (body: string) =>
      receiver.handle({
        headers: standardWebhookHeaders({
          id: `m${body.length}${Math.random()}`,
          timestamp: Math.floor(Date.now() / 1000),
          body,
          secret: SECRET,
        }),
        body,
      });
    expect(json((await send('{not json')).body)).toMatchObject({ error: { code: 'invalid_body' } });
    const noData = await send(
      JSON.stringify({ id: 'e1', type: 'pet.adopted', timestamp: new Date().toISOString() }),
    );
    expect(noData.status).toBe(400);
    expect(json(noData.body)).toMatchObject({ error: { code: 'invalid_envelope', pointer: '/data' } });
  });

  it('strict validation: 400 listing every issue as a JSON pointer; the handler does not run', async () => {
    const hook = vi.fn();
    const { receiver, seen } = setup({ validation: 'strict', onValidationIssue: hook });
    const d = delivery('pet.adopted', { petId: '', adopter: {} });
    const result = await receiver.handle(d);
    expect(result).toMatchObject({ status: 400, outcome: 'rejected' });
    const body = json(result.body) as {
      error: { code: string; issues: { path: string; message: string }[] };
    };
    expect(body.error.code).toBe('invalid_payload');
    expect(body.error.issues.map((i) => i.path).sort()).toEqual(['/data/adopter/name', '/data/petId']);
    expect(seen).toHaveLength(0);
    expect(hook).toHaveBeenCalledOnce();
    // Nothing was claimed: a corrected retry of the same id is processed.
    expect(hook.mock.calls[0]?.[1]).toHaveLength(2);
  });

  it('accepts additional properties (forward-compatible payloads and envelopes)', async () => {
    const { receiver, seen } = setup();
    const d = delivery(
      'pet.adopted',
      { ...adopted(), color: 'brown', adopter: { name: 'Ada', vip: true } },
      {
        extra: { apiVersion: '2026-01-01' },
      },
    );
    expect((await receiver.handle(d)).status).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it('report validation: the handler runs with the issues and the hook is called', async () => {
    const hook = vi.fn();
    const { receiver, seen } = setup({ validation: 'report', onValidationIssue: hook });
    const data = { petId: 'rex', adopter: { name: 42 } };
    const result = await receiver.handle(delivery('pet.adopted', data));
    expect(result.status).toBe(200);
    expect(seen[0]?.data).toEqual(data);
    expect(seen[0]?.issues).toEqual([{ path: '/data/adopter/name', message: expect.any(String) }]);
    expect(hook).toHaveBeenCalledWith(
      expect.objectContaining({ type: 'pet.adopted', data }),
      seen[0]?.issues,
    );
  });

  it('validation off, and per-event overrides', async () => {
    const { receiver, seen } = setup({ validation: 'off', validationByEvent: { 'pet.listed': 'strict' } });
    expect((await receiver.handle(delivery('pet.adopted', { nonsense: true }))).status).toBe(200);
    expect(seen[0]?.data).toEqual({ nonsense: true });
    expect(seen[0]?.issues).toEqual([]);
    expect((await receiver.handle(delivery('pet.listed', { petId: 'x', price: -1 }))).status).toBe(400);
  });

  it('unknown events: ignored with 2xx by default, rejected on request, or given to a catch-all', async () => {
    const ignore = setup();
    const d = delivery('pet.vaccinated', { petId: 'rex' });
    expect(await ignore.receiver.handle(d)).toMatchObject({ status: 200, outcome: 'ignored' });

    const reject = setup({ unknownEvent: 'reject' });
    const rejected = await reject.receiver.handle(d);
    expect(rejected).toMatchObject({ status: 400, outcome: 'rejected' });
    expect(json(rejected.body)).toMatchObject({ error: { code: 'unknown_event' } });

    const caught: unknown[] = [];
    const all = setup({ unknownEvent: (event) => caught.push([event.type, event.data]) });
    expect(await all.receiver.handle(d)).toMatchObject({ status: 200, outcome: 'processed' });
    expect(await all.receiver.handle(d)).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(caught).toEqual([['pet.vaccinated', { petId: 'rex' }]]);
  });

  it('ignores a known event that has no handler', async () => {
    const receiver = createReceiver(petstore, { secret: SECRET, store: memoryStore(), handlers: {} });
    expect(await receiver.handle(delivery('pet.listed', { petId: 'x', price: 1 }))).toMatchObject({
      status: 200,
      outcome: 'ignored',
    });
  });

  it('a throwing handler answers 500 without leaking its message, releases the claim, and the retry processes it', async () => {
    const onError = vi.fn();
    let calls = 0;
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      onError,
      handlers: {
        'pet.adopted': () => {
          calls++;
          if (calls === 1) throw new Error('database password is hunter2');
        },
      },
    });
    const d = delivery('pet.adopted', adopted());
    const failed = await receiver.handle(d);
    expect(failed).toMatchObject({ status: 500, outcome: 'failed' });
    expect(failed.body).not.toContain('hunter2');
    expect(json(failed.body)).toMatchObject({ error: { code: 'handler_failed' } });
    expect(failed.error?.cause).toBeInstanceOf(Error);
    expect(onError).toHaveBeenCalledWith(expect.objectContaining({ code: 'handler_failed' }), {
      outcome: 'failed',
      id: d.headers['webhook-id'],
      type: 'pet.adopted',
    });
    expect(await receiver.handle(d)).toMatchObject({ status: 200, outcome: 'processed' });
    expect(await receiver.handle(d)).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(calls).toBe(2);
  });

  it('answers 409 with Retry-After while another request holds the lease', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => {};
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let calls = 0;
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      leaseMs: 10_000,
      handlers: {
        'pet.adopted': async () => {
          calls++;
          entered();
          await gate;
        },
      },
    });
    const d = delivery('pet.adopted', adopted());
    const first = receiver.handle(d);
    await inside;
    const second = await receiver.handle(d);
    expect(second).toMatchObject({ status: 409, outcome: 'in_progress', headers: { 'retry-after': '10' } });
    release();
    expect((await first).outcome).toBe('processed');
    expect((await receiver.handle(d)).outcome).toBe('duplicate');
    expect(calls).toBe(1);
  });

  it('renews the lease of a slow handler so a retry does not overlap it', async () => {
    const T0 = 1_800_000_000_000;
    let clock = T0;
    const inner = memoryStore();
    const renewals: number[] = [];
    let renewed: () => void = () => {};
    const store = {
      ...inner,
      extend: async (key: string, options: { leaseMs: number; now: number; token: string }) => {
        const held = await inner.extend(key, options);
        renewals.push(options.now);
        renewed();
        return held;
      },
    };
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store,
      now: () => clock,
      tolerance: { past: Number.POSITIVE_INFINITY, future: Number.POSITIVE_INFINITY },
      leaseMs: 60,
      handlers: {
        'pet.adopted': async () => {
          calls++;
          await gate;
        },
      },
    });
    const d = delivery('pet.adopted', adopted(), { timestamp: T0 / 1000 });
    const first = receiver.handle(d);
    // Past the original lease (T0 + 60), renewed at T0 + 50 until T0 + 110.
    clock = T0 + 50;
    await new Promise<void>((resolve) => {
      renewed = resolve;
    });
    clock = T0 + 100;
    expect(await receiver.handle(d)).toMatchObject({ status: 409, outcome: 'in_progress' });
    release();
    expect((await first).outcome).toBe('processed');
    expect(calls).toBe(1);
    expect(renewals[0]).toBe(T0 + 50);
  });

  it('takes over an expired lease of a crashed handler (injected clock)', async () => {
    let now = 1_800_000_000_000;
    const store = memoryStore();
    const handler = vi.fn();
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store,
      now: () => now,
      leaseMs: 30_000,
      tolerance: 3600,
      handlers: { 'pet.adopted': handler },
    });
    const d = delivery('pet.adopted', adopted(), { timestamp: now / 1000 });
    // A process claimed the event and died.
    await store.claim(`petstore:${d.headers['webhook-id']}`, { leaseMs: 30_000, now, token: 'dead' });
    now += 29_999;
    expect((await receiver.handle(d)).status).toBe(409);
    now += 1;
    expect((await receiver.handle(d)).outcome).toBe('processed');
    expect(handler).toHaveBeenCalledOnce();
  });

  it('dedupe: false runs the handler for every delivery', async () => {
    const handler = vi.fn();
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      dedupe: false,
      handlers: { 'pet.adopted': handler },
    });
    const d = delivery('pet.adopted', adopted());
    await receiver.handle(d);
    await receiver.handle(d);
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it('rejects store options that make no sense, and answers a failing store 503 with Retry-After', async () => {
    expect(() => setup({ storeTimeoutMs: -1 })).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    const store = memoryStore();
    const down = { ...store, claim: () => Promise.reject(new Error('down')) };
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: down,
      handlers: { 'pet.adopted': () => {} },
    });
    const answer = await receiver.handle(delivery('pet.adopted', adopted()));
    expect(answer).toMatchObject({ status: 503, outcome: 'failed', headers: { 'retry-after': '5' } });
    expect(json(answer.body)).toMatchObject({ error: { code: 'store_error' } });
  });

  it('rejects bodies over maxBodyBytes (413) and pre-parsed bodies (500 parsed_body with a fix)', async () => {
    const { receiver } = setup({ maxBodyBytes: 64 });
    expect(await receiver.handle(delivery('pet.adopted', adopted()))).toMatchObject({
      status: 413,
      outcome: 'rejected',
    });
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const parsed = await receiver.handle({ headers: {}, body: { already: 'parsed' } as unknown as string });
    expect(parsed).toMatchObject({ status: 500, outcome: 'failed' });
    expect(json(parsed.body)).toMatchObject({ error: { code: 'parsed_body' } });
    expect(String(log.mock.calls[0]?.[0])).toContain('express.raw()');
    log.mockRestore();
  });

  it('fails fast on a configuration without store, secret, transactions or queue', () => {
    const base = { handlers: {} };
    expect(() => createReceiver(petstore, { ...base, secret: SECRET } as never)).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
    expect(() => createReceiver(petstore, { ...base, store: memoryStore() } as never)).toThrow(/secret/);
    expect(() =>
      createReceiver(petstore, {
        ...base,
        secret: SECRET,
        store: memoryStore(),
        transactional: true,
      } as never),
    ).toThrow(/transactions/);
    const noQueue: IdempotencyStore = { ...memoryStore(), queue: undefined } as unknown as IdempotencyStore;
    expect(() =>
      createReceiver(petstore, { ...base, secret: SECRET, store: noQueue, ackFast: ackFastQueue() }),
    ).toThrow(/queue/);
  });

  it('serves Fetch requests', async () => {
    const { receiver, seen } = setup();
    const d = delivery('pet.adopted', adopted());
    const response = await receiver.fetch(
      new Request('http://localhost/hooks', { method: 'POST', headers: d.headers, body: d.body }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ status: 'processed' });
    expect(seen).toHaveLength(1);
    const used = new Request('http://localhost/hooks', { method: 'POST', headers: d.headers, body: d.body });
    await used.text();
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect((await receiver.fetch(used)).status).toBe(500);
    log.mockRestore();
  });
});

describe('createReceiver: bare payloads, header selectors, HMAC (GitHub-like)', () => {
  type Events = {
    'issues.opened': { action: 'opened'; issue: { number: number } };
    ping: { zen: string };
  };
  const contract: Contract<Events> = {
    name: 'gh',
    events: {
      'issues.opened': {
        schema: z.object({ action: z.literal('opened'), issue: z.object({ number: z.number() }) }),
        match: { header: 'issues', body: 'opened' },
      },
      ping: { schema: z.object({ zen: z.string() }), match: { header: 'ping' } },
    },
    signature: {
      kind: 'hmac',
      header: 'X-Hub-Signature-256',
      algorithm: 'sha256',
      encoding: 'hex',
      prefix: 'sha256=',
      idHeader: 'X-GitHub-Delivery',
    },
    envelope: { kind: 'bare' },
    selector: { kind: 'header', header: 'X-GitHub-Event', bodyField: 'action' },
  };
  const scheme = hmacScheme(contract.signature as Extract<Contract['signature'], { kind: 'hmac' }>, {
    secret: 'gh-secret',
  });
  const send = async (event: string, payload: unknown, id?: string) => {
    const body = JSON.stringify(payload);
    const signed = await scheme.sign({ id: id ?? 'unused', timestamp: 0, body });
    return {
      body,
      headers: {
        ...signed,
        'x-github-event': event,
        ...(id === undefined ? {} : { 'x-github-delivery': id }),
      },
    };
  };

  it('selects by header and body field, ids from the delivery header, issues relative to the body', async () => {
    const seen: unknown[] = [];
    const receiver = createReceiver(contract, {
      secret: 'gh-secret',
      store: memoryStore(),
      validation: 'strict',
      handlers: {
        'issues.opened': (e) => seen.push([e.type, e.id, e.data.issue.number]),
        ping: (e) => seen.push([e.type, e.id, e.data.zen]),
      },
    });
    expect(
      (await receiver.handle(await send('issues', { action: 'opened', issue: { number: 7 } }, 'd-1'))).status,
    ).toBe(200);
    expect((await receiver.handle(await send('ping', { zen: 'hi' }, 'd-2'))).status).toBe(200);
    expect(
      (await receiver.handle(await send('issues', { action: 'closed', issue: { number: 7 } }, 'd-3')))
        .outcome,
    ).toBe('ignored');
    const invalid = await receiver.handle(
      await send('issues', { action: 'opened', issue: { number: 'x' } }, 'd-4'),
    );
    expect(json(invalid.body)).toMatchObject({ error: { issues: [{ path: '/issue/number' }] } });
    expect(seen).toEqual([
      ['issues.opened', 'd-1', 7],
      ['ping', 'd-2', 'hi'],
    ]);
  });

  it('falls back to a content hash id when neither transport nor body carries one', async () => {
    const handler = vi.fn();
    const { idHeader: _, ...signature } = contract.signature as Extract<
      Contract['signature'],
      { kind: 'hmac' }
    >;
    const anonymous: Contract<Events> = { ...contract, signature };
    const receiver = createReceiver(anonymous, {
      secret: 'gh-secret',
      store: memoryStore(),
      handlers: { ping: handler },
    });
    const body = JSON.stringify({ zen: 'same' });
    const signed = await hmacScheme(signature, { secret: 'gh-secret' }).sign({ id: 'x', timestamp: 0, body });
    const d = { body, headers: { ...signed, 'x-github-event': 'ping' } };
    expect((await receiver.handle(d)).id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await receiver.handle(d)).outcome).toBe('duplicate');
    expect(handler).toHaveBeenCalledOnce();
  });
});

describe('createReceiver: transactional mode (SQLite)', () => {
  it('commits the business write with the dedupe row, rolls both back when the handler fails', async () => {
    const db = new Database(path.join(dir, 'tx.db'));
    db.exec('CREATE TABLE adoptions (pet TEXT NOT NULL, event TEXT PRIMARY KEY)');
    let fail = true;
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: sqliteStore(db),
      transactional: true,
      handlers: {
        'pet.adopted': (event) => {
          event.tx
            .prepare('INSERT INTO adoptions (pet, event) VALUES (?, ?)')
            .run(event.data.petId, event.id);
          if (fail) throw new Error('crash after the write');
        },
      },
    });
    const count = () => (db.prepare('SELECT count(*) AS n FROM adoptions').get() as { n: number }).n;
    const d = delivery('pet.adopted', adopted());
    expect(await receiver.handle(d)).toMatchObject({ status: 500, outcome: 'failed' });
    expect(count()).toBe(0);
    fail = false;
    expect(await receiver.handle(d)).toMatchObject({ status: 200, outcome: 'processed' });
    expect(await receiver.handle(d)).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(count()).toBe(1);
  });
});

describe('createReceiver: ack-fast mode', () => {
  it('queues verified events, answers at once, and the worker runs each once', async () => {
    const handled: string[] = [];
    const store = memoryStore();
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store,
      ackFast: ackFastQueue(),
      validation: 'strict',
      handlers: { 'pet.adopted': (e) => void handled.push(e.data.petId) },
    });
    const a = delivery('pet.adopted', adopted('a'));
    const b = delivery('pet.adopted', adopted('b'));
    expect(await receiver.handle(a)).toMatchObject({ status: 200, outcome: 'queued' });
    expect(await receiver.handle(a)).toMatchObject({ status: 200, outcome: 'queued' });
    expect(await receiver.handle(b)).toMatchObject({ status: 200, outcome: 'queued' });
    expect(await receiver.handle(delivery('pet.adopted', { petId: 1 }))).toMatchObject({ status: 400 });
    expect(handled).toEqual([]);
    expect(await receiver.drain()).toEqual({ processed: 2, failed: 0 });
    expect(handled).toEqual(['a', 'b']);
    // A late redelivery is queued again but the claim guard sees it is done.
    await receiver.handle(a);
    expect(await receiver.drain()).toEqual({ processed: 1, failed: 0 });
    expect(handled).toEqual(['a', 'b']);
    expect(await store.queue.counts()).toEqual({ pending: 0, failed: 0 });
  });

  it('retries a failing handler with backoff and dead-letters it after maxAttempts', async () => {
    let now = 1_800_000_000_000;
    let calls = 0;
    const store = memoryStore();
    const onError = vi.fn();
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store,
      ackFast: ackFastQueue({ worker: { maxAttempts: 3, backoff: () => 1000 } }),
      now: () => now,
      tolerance: { past: Number.POSITIVE_INFINITY, future: Number.POSITIVE_INFINITY },
      onError,
      handlers: {
        'pet.adopted': () => {
          calls++;
          throw new Error('down');
        },
      },
    });
    await receiver.handle(delivery('pet.adopted', adopted(), { timestamp: now / 1000 }));
    expect(await receiver.drain()).toEqual({ processed: 0, failed: 1 });
    expect(await receiver.drain()).toEqual({ processed: 0, failed: 0 });
    now += 1000;
    expect(await receiver.drain()).toEqual({ processed: 0, failed: 1 });
    now += 1000;
    expect(await receiver.drain()).toEqual({ processed: 0, failed: 1 });
    now += 10_000;
    expect(await receiver.drain()).toEqual({ processed: 0, failed: 0 });
    expect(calls).toBe(3);
    expect(await store.queue.counts()).toEqual({ pending: 0, failed: 1 });
    expect(onError).toHaveBeenCalledTimes(3);
  });

  it('runs a background worker that a new delivery wakes up', async () => {
    let resolveHandled: (id: string) => void = () => {};
    const handled = new Promise<string>((resolve) => {
      resolveHandled = resolve;
    });
    const receiver = createReceiver(petstore, {
      secret: SECRET,
      store: memoryStore(),
      ackFast: ackFastQueue({ worker: { pollMs: 60_000 } }),
      handlers: { 'pet.adopted': (e) => resolveHandled(e.data.petId) },
    });
    receiver.startWorker();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await receiver.handle(delivery('pet.adopted', adopted('woken')));
    expect(await handled).toBe('woken');
    await receiver.stop();
  });
});
