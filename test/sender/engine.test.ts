/**
 * The sender engine against both outboxes: persistence before `send` resolves, signing (checked with
 * the reference `standardwebhooks` library), the retry schedule and Retry-After, the dead-letter
 * queue, redelivery in its three forms, endpoint health (410, consecutive failures, re-enable),
 * secret rotation, and the transactional outbox.
 */
import type http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DisabledReason, Endpoint, Outbox } from '../../runtime/deliver/outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { isWebhookError } from '../../runtime/errors.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import {
  LOCAL,
  outboxFixtures,
  petContract,
  readBody,
  startServer,
  type TestServer,
  virtualClock,
  warnNoDatabase,
} from './helpers.js';

warnNoDatabase('PostgreSQL outbox engine tests');

interface Seen {
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Reply = (req: http.IncomingMessage, res: http.ServerResponse) => void;

describe.each(outboxFixtures)('sender engine on $name', (fixture) => {
  let server: TestServer;
  let seen: Seen[] = [];
  let reply: Reply = (_req, res) => res.end('ok');
  let outbox: Outbox;
  let raw: unknown;
  let cleanup: () => Promise<void>;
  let counter = 0;

  beforeAll(async () => {
    if (fixture.skip) return;
    server = await startServer(async (req, res) => {
      const body = (await readBody(req)).toString('utf8');
      seen.push({ headers: req.headers, body });
      reply(req, res);
    });
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(async () => {
    if (fixture.skip) return;
    seen = [];
    reply = (_req, res) => res.end('ok');
    const made = await fixture.create(`engine${counter++}`);
    outbox = made.outbox;
    raw = made.raw;
    cleanup = made.cleanup;
  });
  afterEach(async () => {
    if (!fixture.skip) await cleanup();
  });

  const setup = async (
    opts: {
      retry?: Parameters<typeof petContract>[0];
      disableAfterFailures?: number;
      disableAfterFailingForMs?: number;
      events?: string[];
      start?: number;
    } = {},
  ) => {
    const clock = virtualClock(opts.start ?? Date.now());
    const contract = petContract(opts.retry);
    const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL, now: clock.now });
    const { endpoint, secret } = await manager.register({
      url: `${server.url}/hooks`,
      events: opts.events ?? ['pet.adopted'],
    });
    const disabled: Array<[Endpoint, DisabledReason]> = [];
    const sender = createSender(contract, { outbox, now: clock.now });
    const worker = createWorker({
      outbox,
      contract,
      urlPolicy: LOCAL,
      now: clock.now,
      timeoutMs: 2000,
      concurrency: 4,
      ...(opts.disableAfterFailures !== undefined ? { disableAfterFailures: opts.disableAfterFailures } : {}),
      ...(opts.disableAfterFailingForMs !== undefined
        ? { disableAfterFailingForMs: opts.disableAfterFailingForMs }
        : {}),
      onEndpointDisabled: (e, reason) => {
        disabled.push([e, reason]);
      },
    });
    /** Runs the worker, jumping the clock to each next due time, until nothing is pending. */
    const drain = async (maxRounds = 50) => {
      for (let i = 0; i < maxRounds; i++) {
        await worker.runOnce();
        const due = await outbox.nextDueAt();
        if (due === undefined) return;
        if (due > clock.now()) clock.set(due);
      }
      throw new Error('drain did not settle');
    };
    return { clock, contract, manager, endpoint, secret, sender, worker, disabled, drain };
  };

  it.skipIf(fixture.skip)('nextDueAt: the earliest pending delivery of an enabled endpoint', async () => {
    const { sender, manager, endpoint, clock } = await setup();
    const other = await manager.register({ url: `${server.url}/other`, events: ['pet.adopted'] });
    expect(await outbox.nextDueAt()).toBeUndefined();
    const start = clock.now();
    await sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
    clock.set(start + 5000);
    await sender.send('pet.adopted', { petId: 'p2', by: 'ann' });
    expect(await outbox.nextDueAt()).toBe(start);
    // Both endpoints hold a delivery sent at `start`: disabling one leaves the other's.
    await outbox.disableEndpoint(endpoint.id, 'manual', clock.now());
    expect(await outbox.nextDueAt()).toBe(start);
    await outbox.disableEndpoint(other.endpoint.id, 'manual', clock.now());
    expect(await outbox.nextDueAt()).toBeUndefined();
    await outbox.enableEndpoint(other.endpoint.id, clock.now());
    expect(await outbox.nextDueAt()).toBe(start);
  });

  it.skipIf(fixture.skip)('persists one delivery per subscribed endpoint before send resolves', async () => {
    const { sender, manager, endpoint } = await setup();
    const other = await manager.register({ url: `${server.url}/other`, events: ['pet.created'] });
    const result = await sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
    expect(result.messageId).toMatch(/^msg_/);
    expect(result.deliveryIds).toHaveLength(1);
    const [delivery] = await outbox.listDeliveries({ messageId: result.messageId });
    expect(delivery).toMatchObject({
      endpointId: endpoint.id,
      status: 'pending',
      attempts: 0,
      eventType: 'pet.adopted',
    });
    expect(await outbox.listDeliveries({ endpointId: other.endpoint.id })).toHaveLength(0);
    // Same id again: idempotent, no second delivery.
    const again = await sender.send('pet.adopted', { petId: 'p1', by: 'ann' }, { id: result.messageId });
    expect(again.deliveryIds).toEqual(result.deliveryIds);
    expect(seen).toHaveLength(0);
  });

  it.skipIf(fixture.skip)(
    'refuses unknown events and invalid payloads (strict), reports them (report)',
    async () => {
      const { sender, contract } = await setup();
      await expect(
        sender.send('pet.unknown' as 'pet.adopted', { petId: 'x', by: 'y' }),
      ).rejects.toMatchObject({
        code: 'unknown_event',
      });
      const error = await sender
        .send('pet.adopted', { petId: 42 } as unknown as { petId: string; by: string })
        .catch((e: unknown) => e);
      expect(isWebhookError(error, 'invalid_payload')).toBe(true);
      expect(
        (error as { details: { issues: { path: string }[] } }).details.issues.map((i) => i.path),
      ).toEqual(expect.arrayContaining(['/petId', '/by']));
      const reported: string[] = [];
      const lax = createSender(contract, {
        outbox,
        validation: 'report',
        onInvalid: (e) => reported.push(e.code),
      });
      const sent = await lax.send('pet.adopted', { petId: 42 } as unknown as { petId: string; by: string });
      expect(sent.deliveryIds).toHaveLength(1);
      expect(reported).toEqual(['invalid_payload']);
    },
  );

  it.skipIf(fixture.skip)(
    'signs deliveries so the reference Standard Webhooks library verifies them',
    async () => {
      const { sender, worker, secret } = await setup();
      const { messageId } = await sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
      const summary = await worker.runOnce();
      expect(summary).toEqual({ attempted: 1, succeeded: 1, retried: 0, dead: 0 });
      expect(seen).toHaveLength(1);
      const req = seen[0]!;
      expect(req.headers['webhook-id']).toBe(messageId);
      const verified = new Webhook(secret).verify(req.body, req.headers as Record<string, string>) as {
        id: string;
        type: string;
        data: unknown;
      };
      expect(verified).toMatchObject({
        id: messageId,
        type: 'pet.adopted',
        data: { petId: 'p1', by: 'ann' },
      });
      const [delivery] = await outbox.listDeliveries({ messageId });
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1 });
      const attempts = await outbox.listAttempts({ deliveryId: delivery!.id });
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatchObject({
        outcome: 'succeeded',
        statusCode: 200,
        responseSnippet: 'ok',
        attempt: 1,
      });
    },
  );

  it.skipIf(fixture.skip)(
    'retries on the contract schedule, then dead-letters with the last error',
    async () => {
      reply = (_req, res) => {
        res.statusCode = 503;
        res.end('busy '.repeat(500));
      };
      const { sender, drain, clock } = await setup({ retry: { kind: 'list', delays: [0, 5, 300] } });
      const t0 = clock.now();
      const { messageId } = await sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
      await drain();
      expect(seen).toHaveLength(3);
      const [delivery] = await outbox.listDeliveries({ messageId });
      expect(delivery).toMatchObject({ status: 'dead', attempts: 3 });
      expect(delivery!.lastError).toContain('http_503');
      const attempts = (await outbox.listAttempts({ deliveryId: delivery!.id })).reverse();
      expect(attempts.map((a) => a.startedAt - t0)).toEqual([0, 5000, 305000]);
      expect(attempts.every((a) => a.statusCode === 503 && a.outcome === 'failed')).toBe(true);
      // Response snippets are capped at 1 KiB.
      expect(attempts[0]!.responseSnippet!.length).toBe(1024);
    },
  );

  it.skipIf(fixture.skip)('honours Retry-After (clamped) instead of the schedule', async () => {
    let n = 0;
    reply = (_req, res) => {
      n++;
      if (n === 1) {
        res.writeHead(429, { 'retry-after': '42' }).end();
      } else if (n === 2) {
        res.writeHead(503, { 'retry-after': '999999' }).end();
      } else res.end('ok');
    };
    const { sender, drain, clock } = await setup({ retry: { kind: 'list', delays: [0, 5, 300, 300] } });
    const t0 = clock.now();
    const { messageId } = await sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
    await drain();
    const [delivery] = await outbox.listDeliveries({ messageId });
    expect(delivery!.status).toBe('succeeded');
    const attempts = (await outbox.listAttempts({ deliveryId: delivery!.id })).reverse();
    // 42 s as asked; then 999999 s clamped to the 1 h maximum.
    expect(attempts.map((a) => a.startedAt - t0)).toEqual([0, 42_000, 42_000 + 3_600_000]);
  });

  it.skipIf(fixture.skip)('treats a redirect as a failure and never follows it', async () => {
    reply = (req, res) => {
      if (req.url === '/hooks') res.writeHead(302, { location: `${server.url}/elsewhere` }).end();
      else res.end('followed');
    };
    const { sender, drain } = await setup();
    const { messageId } = await sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
    await drain();
    expect(seen.map((s) => s.headers.host)).toHaveLength(1);
    const [delivery] = await outbox.listDeliveries({ messageId });
    expect(delivery).toMatchObject({ status: 'dead', attempts: 1 });
    expect(delivery!.lastError).toContain('redirect_302');
  });

  it.skipIf(fixture.skip)(
    '410 disables the endpoint at once; re-enabling resumes its deliveries',
    async () => {
      let gone = true;
      reply = (_req, res) => {
        res.statusCode = gone ? 410 : 200;
        res.end();
      };
      const { sender, worker, manager, endpoint, disabled, clock } = await setup();
      const first = await sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
      await worker.runOnce();
      expect(disabled.map(([e, r]) => [e.id, r])).toEqual([[endpoint.id, 'gone']]);
      expect(await manager.get(endpoint.id)).toMatchObject({ enabled: false, disabledReason: 'gone' });
      // While disabled nothing is delivered, even when due; new messages wait too.
      const second = await sender.send('pet.adopted', { petId: 'p2', by: 'bob' });
      clock.advance(3_600_000);
      expect(await worker.runOnce()).toMatchObject({ attempted: 0 });
      gone = false;
      await manager.enable(endpoint.id);
      expect(await worker.runOnce()).toMatchObject({ attempted: 2, succeeded: 2 });
      for (const id of [first.messageId, second.messageId]) {
        expect((await outbox.listDeliveries({ messageId: id }))[0]!.status).toBe('succeeded');
      }
      expect(disabled).toHaveLength(1);
    },
  );

  const DAY = 24 * 60 * 60 * 1000;
  const failing: Reply = (_req, res) => {
    res.statusCode = 500;
    res.end();
  };

  it.skipIf(fixture.skip)(
    'N consecutive failed attempts disable the endpoint and call the hook once (no time window)',
    async () => {
      reply = failing;
      const { sender, worker, manager, endpoint, disabled } = await setup({
        disableAfterFailures: 3,
        disableAfterFailingForMs: 0,
      });
      for (let i = 0; i < 5; i++) await sender.send('pet.adopted', { petId: `p${i}`, by: 'ann' });
      await worker.runOnce();
      expect(disabled).toHaveLength(1);
      expect(disabled[0]![1]).toBe('consecutive_failures');
      const view = await manager.get(endpoint.id);
      expect(view).toMatchObject({ enabled: false, disabledReason: 'consecutive_failures' });
      expect(view.consecutiveFailures).toBeGreaterThanOrEqual(3);
      const enabled = await manager.enable(endpoint.id);
      expect(enabled).toMatchObject({ enabled: true, consecutiveFailures: 0, disabledReason: null });
    },
  );

  it.skipIf(fixture.skip)(
    'by default a streak disables the endpoint only once it is 5 days old, however many failures',
    async () => {
      reply = failing;
      const { sender, worker, manager, endpoint, disabled, clock } = await setup({
        disableAfterFailures: 3,
        retry: { kind: 'list', delays: [0] },
      });
      const start = clock.now();
      // An outage of a busy endpoint: far past the count within a moment.
      for (let i = 0; i < 8; i++) await sender.send('pet.adopted', { petId: `p${i}`, by: 'ann' });
      await worker.runOnce();
      expect(disabled).toHaveLength(0);
      expect(await manager.get(endpoint.id)).toMatchObject({
        enabled: true,
        consecutiveFailures: 8,
        failingSince: new Date(start).toISOString(),
      });
      clock.set(start + 5 * DAY - 60_000);
      await sender.send('pet.adopted', { petId: 'late', by: 'ann' });
      await worker.runOnce();
      expect(disabled).toHaveLength(0);
      clock.set(start + 5 * DAY);
      await sender.send('pet.adopted', { petId: 'last', by: 'ann' });
      await sender.send('pet.adopted', { petId: 'after', by: 'ann' });
      await worker.runOnce();
      expect(disabled.map(([, reason]) => reason)).toEqual(['consecutive_failures']);
      expect(await manager.get(endpoint.id)).toMatchObject({
        enabled: false,
        disabledReason: 'consecutive_failures',
      });
      // Re-enabled, the streak starts over: its clock too.
      expect(await manager.enable(endpoint.id)).toMatchObject({ failingSince: null });
      clock.advance(DAY);
      const restarted = clock.now();
      for (let i = 0; i < 4; i++) await sender.send('pet.adopted', { petId: `r${i}`, by: 'ann' });
      await worker.runOnce();
      expect(disabled).toHaveLength(1);
      expect(await manager.get(endpoint.id)).toMatchObject({
        enabled: true,
        consecutiveFailures: 4,
        failingSince: new Date(restarted).toISOString(),
      });
    },
  );

  it.skipIf(fixture.skip)('a success in between starts the streak’s clock again', async () => {
    const { sender, worker, manager, endpoint, disabled, clock } = await setup({
      disableAfterFailures: 2,
      disableAfterFailingForMs: 2 * DAY,
      retry: { kind: 'list', delays: [0] },
    });
    const start = clock.now();
    reply = failing;
    for (let i = 0; i < 3; i++) await sender.send('pet.adopted', { petId: `a${i}`, by: 'ann' });
    await worker.runOnce();
    clock.set(start + DAY);
    reply = (_req, res) => res.end('ok');
    await sender.send('pet.adopted', { petId: 'ok', by: 'ann' });
    await worker.runOnce();
    expect(await manager.get(endpoint.id)).toMatchObject({ consecutiveFailures: 0, failingSince: null });
    reply = failing;
    clock.set(start + 2 * DAY);
    for (let i = 0; i < 3; i++) await sender.send('pet.adopted', { petId: `b${i}`, by: 'ann' });
    await worker.runOnce();
    // Two days after the first failure, but one day into this streak.
    expect(disabled).toHaveLength(0);
    clock.set(start + 4 * DAY);
    await sender.send('pet.adopted', { petId: 'c', by: 'ann' });
    await worker.runOnce();
    expect(disabled.map(([, reason]) => reason)).toEqual(['consecutive_failures']);
  });

  it.skipIf(fixture.skip)('a success resets the failure counter', async () => {
    let fail = 2;
    reply = (_req, res) => {
      res.statusCode = fail-- > 0 ? 500 : 200;
      res.end();
    };
    const { sender, drain, manager, endpoint, disabled } = await setup({ disableAfterFailures: 3 });
    await sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
    await drain();
    expect(disabled).toHaveLength(0);
    expect((await manager.get(endpoint.id)).consecutiveFailures).toBe(0);
  });

  it.skipIf(fixture.skip)(
    'redelivers one message, one delivery, or an endpoint’s dead letters in a range',
    async () => {
      reply = (_req, res) => {
        res.statusCode = 503;
        res.end();
      };
      const { sender, drain, clock, manager, endpoint } = await setup({
        retry: { kind: 'list', delays: [0] },
      });
      const a = await sender.send('pet.adopted', { petId: 'a', by: 'ann' });
      await drain();
      const deadAtA = clock.now();
      clock.advance(60_000);
      const b = await sender.send('pet.adopted', { petId: 'b', by: 'ann' });
      await drain();
      clock.advance(60_000);
      const c = await sender.send('pet.adopted', { petId: 'c', by: 'ann' });
      await drain();
      const dead = await outbox.listDeliveries({ endpointId: endpoint.id, status: 'dead' });
      expect(dead).toHaveLength(3);
      expect(seen).toHaveLength(3);
      reply = (_req, res) => res.end('ok');

      // 1. One message.
      expect(await sender.redeliver({ messageId: a.messageId })).toBe(1);
      await drain();
      expect((await outbox.listDeliveries({ messageId: a.messageId }))[0]).toMatchObject({
        status: 'succeeded',
        attempts: 1,
      });

      // 2. One delivery.
      const bDelivery = (await outbox.listDeliveries({ messageId: b.messageId }))[0]!;
      expect(await sender.redeliver({ deliveryId: bDelivery.id })).toBe(1);
      await drain();
      expect((await outbox.getDelivery(bDelivery.id))!.status).toBe('succeeded');
      // Attempt history keeps the failed attempt and the redelivered one.
      expect((await outbox.listAttempts({ deliveryId: bDelivery.id })).map((x) => x.outcome)).toEqual([
        'succeeded',
        'failed',
      ]);

      // 3. Endpoint + time range: a range that excludes c's dead-lettering time redelivers nothing.
      expect(await manager.redeliver(endpoint.id, { from: deadAtA, to: deadAtA + 1000 })).toBe(0);
      expect(await manager.redeliver(endpoint.id, { from: deadAtA, to: clock.now() + 1 })).toBe(1);
      await drain();
      expect((await outbox.listDeliveries({ messageId: c.messageId }))[0]!.status).toBe('succeeded');
      // Nothing pending or in flight is touched by a redelivery.
      expect(await sender.redeliver({ messageId: c.messageId })).toBe(1);
      expect(await sender.redeliver({ messageId: c.messageId })).toBe(0);
    },
  );

  it.skipIf(fixture.skip)(
    'during a rotation overlap signs with both secrets; each alone verifies',
    async () => {
      const { sender, worker, manager, endpoint, secret: oldSecret, clock } = await setup();
      const { secret: newSecret, previousSecretExpiresAt } = await manager.rotateSecret(endpoint.id, 60_000);
      expect(newSecret).not.toBe(oldSecret);
      await sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
      await worker.runOnce();
      const req = seen[0]!;
      const signatures = String(req.headers['webhook-signature']).split(' ');
      expect(signatures).toHaveLength(2);
      const headers = req.headers as Record<string, string>;
      expect(new Webhook(oldSecret).verify(req.body, headers)).toBeTruthy();
      expect(new Webhook(newSecret).verify(req.body, headers)).toBeTruthy();
      // After the overlap only the new secret signs.
      clock.set(Date.parse(previousSecretExpiresAt) + 1);
      seen = [];
      await sender.send('pet.adopted', { petId: 'p2', by: 'ann' });
      await worker.runOnce();
      const later = seen[0]!;
      expect(String(later.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(() =>
        new Webhook(oldSecret).verify(later.body, later.headers as Record<string, string>),
      ).toThrow();
    },
  );

  it.skipIf(fixture.skip)(
    'a rolled-back transaction leaves no message and no delivery; a committed one does',
    async () => {
      const { sender, endpoint } = await setup();
      if (fixture.name === 'sqlite') {
        const db = new Database(path.join(raw as string, 'outbox.db'));
        try {
          db.exec('BEGIN');
          const r = await sender.send('pet.adopted', { petId: 'tx', by: 'ann' }, { tx: db });
          expect(r.deliveryIds).toHaveLength(1);
          db.exec('ROLLBACK');
          expect(await outbox.listDeliveries({ endpointId: endpoint.id })).toHaveLength(0);
          db.exec('BEGIN');
          await sender.send('pet.adopted', { petId: 'tx2', by: 'ann' }, { tx: db });
          db.exec('COMMIT');
        } finally {
          db.close();
        }
      } else {
        const { pool } = raw as { pool: pg.Pool };
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const r = await sender.send('pet.adopted', { petId: 'tx', by: 'ann' }, { tx: client });
          expect(r.deliveryIds).toHaveLength(1);
          await client.query('ROLLBACK');
          expect(await outbox.listDeliveries({ endpointId: endpoint.id })).toHaveLength(0);
          await client.query('BEGIN');
          await sender.send('pet.adopted', { petId: 'tx2', by: 'ann' }, { tx: client });
          await client.query('COMMIT');
        } finally {
          client.release();
        }
      }
      expect(await outbox.listDeliveries({ endpointId: endpoint.id })).toHaveLength(1);
    },
  );

  it.skipIf(fixture.skip)(
    'an expired lease is taken over; the late completion of the old holder is ignored',
    async () => {
      const { sender, clock } = await setup();
      await sender.send('pet.adopted', { petId: 'p1', by: 'ann' });
      const [first] = await outbox.claim({ owner: 'a', now: clock.now(), leaseMs: 10_000, limit: 10 });
      expect(first).toMatchObject({ attempt: 1, leaseOwner: 'a' });
      expect(
        await outbox.claim({ owner: 'b', now: clock.now() + 9_999, leaseMs: 10_000, limit: 10 }),
      ).toHaveLength(0);
      const [second] = await outbox.claim({
        owner: 'b',
        now: clock.now() + 10_000,
        leaseMs: 10_000,
        limit: 10,
      });
      expect(second).toMatchObject({ attempt: 2, leaseOwner: 'b' });
      const late = await outbox.complete({
        delivery: first!,
        now: clock.now() + 10_001,
        attempt: { startedAt: clock.now(), durationMs: 1, statusCode: 200, outcome: 'succeeded' },
        resolution: { kind: 'succeeded' },
      });
      expect(late.applied).toBe(false);
      expect((await outbox.getDelivery(first!.id))!).toMatchObject({ status: 'delivering', leaseOwner: 'b' });
    },
  );

  it.skipIf(fixture.skip)('per-endpoint rate limits hold across claims', async () => {
    const { sender, clock, manager } = await setup();
    const limited = await outbox.createEndpoint(
      {
        url: `${server.url}/limited`,
        events: ['pet.created'],
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        rateLimit: 2,
      },
      clock.now(),
    );
    for (let i = 0; i < 6; i++) await sender.send('pet.created', { petId: `p${i}`, name: 'rex' });
    const claimAt = (t: number) => outbox.claim({ owner: 'w', now: t, leaseMs: 60_000, limit: 10 });
    const t = clock.now();
    expect(await claimAt(t)).toHaveLength(2); // burst of one second's worth
    expect(await claimAt(t)).toHaveLength(0);
    expect(await claimAt(t + 500)).toHaveLength(1);
    expect(await claimAt(t + 1000)).toHaveLength(1);
    expect((await manager.get(limited.id)).rateLimit).toBe(2);
  });
});
