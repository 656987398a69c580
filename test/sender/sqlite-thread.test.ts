/**
 * The SQLite outbox in its own thread: what the shared engine/chaos/crash suites (which run it as the
 * `sqlite-thread` fixture) do not show — errors crossing the thread typed, a completion visible to
 * another connection once it resolves, close() draining, a dead thread rejecting instead of hanging
 * (and nothing lost: the leases run out and the work is claimed again), and delivery end to end.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClaimedDelivery, CompleteInput, Outbox } from '../../runtime/deliver/outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { outboxThread, threadedSqliteOutbox } from '../../runtime/deliver/sqlite-thread.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { isWebhookError, WebhookError } from '../../runtime/errors.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { LOCAL, petContract, readBody, startServer, tempDir } from './helpers.js';

const done = (delivery: ClaimedDelivery, now: number): CompleteInput => ({
  delivery,
  now,
  attempt: { startedAt: now, durationMs: 1, statusCode: 200, outcome: 'succeeded' },
  resolution: { kind: 'succeeded' },
});

const message = (id: string) => ({ id, eventType: 'e', body: '{}', headers: {}, createdAt: 0 });

describe('threadedSqliteOutbox', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const fn of cleanups.reverse()) await fn();
    cleanups.length = 0;
  });
  const open = (tag: string): { outbox: Outbox; file: string } => {
    const dir = tempDir(tag);
    const file = path.join(dir, 'outbox.db');
    const outbox = threadedSqliteOutbox(file);
    cleanups.push(async () => {
      await outbox.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    return { outbox, file };
  };

  it('errors from the thread arrive as WebhookErrors with their code; driver errors keep theirs', async () => {
    const { outbox } = open('thread-errors');
    const input = { id: 'ep_1', url: 'https://example.com/h', events: ['*'], secret: 'whsec_x' };
    await outbox.createEndpoint(input, 0);
    const error = await outbox.createEndpoint(input, 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookError);
    expect(isWebhookError(error, 'invalid_argument')).toBe(true);
    expect((error as WebhookError).status).toBe(400);
    expect((error as Error).message).toContain('ep_1');
    // A bad tx handle is refused on this side, typed too.
    await expect(outbox.enqueue(message('m'), { tx: {} })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    expect(() => threadedSqliteOutbox('x.db', { prefix: 'no spaces' })).toThrow(WebhookError);

    // A driver error (better-sqlite3 cannot open the file) keeps its name and message, as in-thread.
    const nowhere = path.join(tempDir('thread-missing'), 'no', 'such', 'dir.db');
    const inThread = (await sqliteOutbox(nowhere)
      .init()
      .then(() => new Error('opened'))
      .catch((e: unknown) => e)) as Error;
    const missing = threadedSqliteOutbox(nowhere);
    const driver = await missing.init().catch((e: unknown) => e);
    expect(driver).toBeInstanceOf(Error);
    expect(driver).toMatchObject({ name: inThread.name, message: inThread.message });
    await missing.close();
  });

  it('a resolved completion is committed (another connection sees it); close() drains what was called', async () => {
    const { outbox, file } = open('thread-commit');
    await outbox.createEndpoint({ url: 'https://example.com/h', events: ['*'], secret: 'whsec_x' }, 0);
    for (let i = 0; i < 6; i++) await outbox.enqueue(message(`m${i}`));
    const claimed = await outbox.claim({ owner: 'w', now: 1000, leaseMs: 30_000, limit: 10 });
    expect(claimed).toHaveLength(6);
    const [first, ...rest] = claimed as [ClaimedDelivery, ...ClaimedDelivery[]];
    expect((await outbox.complete(done(first, 1000))).applied).toBe(true);
    const other = new Database(file, { readonly: true });
    cleanups.push(() => {
      other.close();
    });
    const status = (id: string) =>
      (other.prepare('SELECT status FROM webhook_deliveries WHERE id = ?').get(id) as { status: string })
        .status;
    expect(status(first.id)).toBe('succeeded');

    // Called in one turn, not awaited before close(): close waits for their commit.
    const pending = rest.map((d) => outbox.complete(done(d, 1000)));
    await outbox.close();
    expect((await Promise.all(pending)).every((r) => r.applied)).toBe(true);
    for (const d of rest) expect(status(d.id)).toBe('succeeded');
    // A call after close() starts a new thread.
    expect(await outbox.listDeliveries({ status: 'succeeded' })).toHaveLength(6);
  });

  it('a dead thread rejects every waiting call with store_error, the next call restarts it, nothing is lost', async () => {
    const { outbox } = open('thread-death');
    await outbox.createEndpoint({ url: 'https://example.com/h', events: ['*'], secret: 'whsec_x' }, 0);
    for (let i = 0; i < 4; i++) await outbox.enqueue(message(`m${i}`));
    const claimed = await outbox.claim({ owner: 'a', now: 1000, leaseMs: 1000, limit: 10 });
    expect(claimed).toHaveLength(4);

    // Completions called, then the thread dies before answering: they reject, typed, and do not hang.
    const calls = claimed.map((d) => outbox.complete(done(d, 1100)).catch((e: unknown) => e));
    const thread = outboxThread(outbox);
    expect(thread).toBeDefined();
    await thread?.terminate();
    for (const result of await Promise.all(calls)) {
      expect(isWebhookError(result, 'store_error')).toBe(true);
    }
    expect(outboxThread(outbox)).toBeUndefined();

    // A new thread; the deliveries whose completion was not confirmed are claimed again once the
    // lease ends (at-least-once), none is lost.
    const states = await outbox.listDeliveries({ limit: 10 });
    expect(states).toHaveLength(4);
    const again = await outbox.claim({ owner: 'b', now: 2000, leaseMs: 1000, limit: 10 });
    const unfinished = states.filter((d) => d.status !== 'succeeded').map((d) => d.id);
    expect(again.map((d) => d.id).sort()).toEqual(unfinished.sort());
    await Promise.all(again.map((d) => outbox.complete(done(d, 2000))));
    expect(await outbox.listDeliveries({ status: 'succeeded', limit: 10 })).toHaveLength(4);
    expect(await outbox.nextDueAt()).toBeUndefined();
  });

  it('delivers end to end to a 127.0.0.1 receiver with a worker on the main thread', async () => {
    const { outbox } = open('thread-e2e');
    const received = new Map<string, number>();
    const server = await startServer(async (req, res) => {
      await readBody(req);
      const id = String(req.headers['webhook-id']);
      received.set(id, (received.get(id) ?? 0) + 1);
      res.end('ok');
    });
    cleanups.push(() => server.close());
    const contract = petContract();
    const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
    await manager.register({ url: `${server.url}/hooks`, events: ['pet.adopted'] });
    const sender = createSender(contract, { outbox });
    const sent: string[] = [];
    for (let i = 0; i < 200; i++) {
      sent.push((await sender.send('pet.adopted', { petId: `p${i}`, by: 'ann' })).messageId);
    }
    const worker = createWorker({ outbox, contract, urlPolicy: LOCAL, concurrency: 16 });
    const summary = await worker.runOnce();
    await worker.stop();
    expect(summary).toMatchObject({ attempted: 200, succeeded: 200 });
    for (const id of sent) expect(received.get(id)).toBe(1);
    expect(await outbox.listDeliveries({ status: 'succeeded', limit: 1000 })).toHaveLength(200);
    expect(await outbox.listAttempts({ limit: 1000 })).toHaveLength(200);
  });
});
