/**
 * Chaos: a real receiver (the runtime's `createReceiver` with a dedupe store) behind node:http that
 * fails at random from a seeded RNG — 500s, hangs (timeouts), connection resets, and "processed but
 * the response was lost". Every event must be processed exactly once or be dead-lettered, the
 * dead-lettered ones must be exactly those whose every attempt failed, and the waits between attempts
 * must follow the contract's schedule (virtual clock: the test runs in seconds).
 */
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { createReceiver } from '../../runtime/receive/index.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import {
  LOCAL,
  outboxFixtures,
  type PetEvents,
  petContract,
  readBody,
  seededRng,
  startServer,
  tempDir,
  virtualClock,
  warnNoDatabase,
} from './helpers.js';

warnNoDatabase('the PostgreSQL chaos run');

type Fate = 'ok' | 'error500' | 'hang' | 'reset' | 'lost';
const FAILED: ReadonlySet<Fate> = new Set(['error500', 'hang', 'reset', 'lost']);
const DELAYS = [0, 5, 30, 60];

describe.each(
  outboxFixtures.flatMap((fixture) => [
    { fixture, store: 'memory' as const, seed: 7, n: fixture.name === 'sqlite' ? 200 : 120 },
    { fixture, store: 'sqlite' as const, seed: 11, n: fixture.name === 'sqlite' ? 120 : 60 },
  ]),
)('chaos on the $fixture.name outbox, $store dedupe store', ({ fixture, store, seed, n }) => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  it.skipIf(fixture.skip)(
    `${n} events: each processed exactly once or dead-lettered, on schedule`,
    async () => {
      const made = await fixture.create(`chaos_${store}_${seed}`);
      const outbox: Outbox = made.outbox;
      cleanups.push(made.cleanup);
      const clock = virtualClock(Date.now());
      const contract = petContract({ kind: 'list', delays: DELAYS });
      const rng = seededRng(seed);

      const dir = tempDir('chaos-store');
      cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
      const dedupe = store === 'memory' ? memoryStore() : sqliteStore(path.join(dir, 'dedupe.db'));
      const processed = new Map<string, number>();
      let receiver: ReturnType<typeof createReceiver<PetEvents>> | undefined;
      const fates = new Map<string, Fate[]>();
      const plan = new Map<string, Fate[]>();
      for (let i = 0; i < n; i++) {
        plan.set(
          `pet-${i}`,
          DELAYS.map(() => {
            const r = rng();
            return r < 0.17 ? 'error500' : r < 0.24 ? 'hang' : r < 0.32 ? 'reset' : r < 0.45 ? 'lost' : 'ok';
          }),
        );
      }
      const hanging: http.ServerResponse[] = [];
      const server = await startServer(async (req, res) => {
        const body = await readBody(req);
        const messageId = String(req.headers['webhook-id']);
        // Fates are planned per event and attempt, so the run is deterministic whatever the arrival order.
        const petId = (JSON.parse(body.toString('utf8')) as { data: { petId: string } }).data.petId;
        const seen = fates.get(messageId) ?? [];
        const fate = plan.get(petId)?.[seen.length] ?? 'ok';
        fates.set(messageId, [...seen, fate]);
        if (fate === 'error500') {
          res.statusCode = 500;
          res.end('chaos');
          return;
        }
        if (fate === 'hang') {
          hanging.push(res);
          return;
        }
        if (fate === 'reset') {
          req.socket.destroy();
          return;
        }
        const result = await receiver!.handle({ headers: req.headers, body });
        if (fate === 'lost') {
          req.socket.destroy();
          return;
        }
        res.writeHead(result.status, { 'content-type': 'application/json' }).end(result.body);
      });
      cleanups.push(() => server.close());

      const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL, now: clock.now });
      const { secret } = await manager.register({ url: `${server.url}/hooks`, events: ['pet.adopted'] });
      receiver = createReceiver(contract, {
        secret,
        now: clock.now,
        store: dedupe,
        handlers: {
          'pet.adopted': (event) => {
            processed.set(event.data.petId, (processed.get(event.data.petId) ?? 0) + 1);
          },
        },
      });
      const sender = createSender(contract, { outbox, now: clock.now });
      const worker = createWorker({
        outbox,
        contract,
        urlPolicy: LOCAL,
        now: clock.now,
        rng,
        timeoutMs: 1500,
        leaseMs: 60_000,
        concurrency: 32,
        disableAfterFailures: 0,
        onError: (error) => {
          throw error;
        },
      });
      const ids = new Map<string, string>();
      for (let i = 0; i < n; i++) {
        const { messageId } = await sender.send('pet.adopted', { petId: `pet-${i}`, by: 'chaos' });
        ids.set(messageId, `pet-${i}`);
      }

      for (let round = 0; round < 40; round++) {
        await worker.runOnce();
        const due = await outbox.nextDueAt();
        if (due === undefined) break;
        clock.set(Math.max(due, clock.now()));
      }
      await worker.stop();
      expect(await outbox.nextDueAt()).toBeUndefined();

      // Exactly once: nothing processed twice, every acknowledged event processed.
      expect([...processed.values()].every((count) => count === 1)).toBe(true);
      const deliveries = await outbox.listDeliveries({ limit: 10_000 });
      expect(deliveries).toHaveLength(n);
      const dead = new Set(deliveries.filter((d) => d.status === 'dead').map((d) => d.messageId));
      const succeeded = deliveries.filter((d) => d.status === 'succeeded').map((d) => d.messageId);
      expect(dead.size + succeeded.length).toBe(n);
      for (const messageId of succeeded) expect(processed.get(ids.get(messageId)!)).toBe(1);

      // A planned 'ok' whose answer still missed the sender's deadline (an overloaded machine) was
      // processed but not acknowledged: the same as a lost response.
      for (const delivery of deliveries) {
        const attempts = (await outbox.listAttempts({ deliveryId: delivery.id })).reverse();
        const seen = fates.get(delivery.messageId)!;
        attempts.forEach((a, i) => {
          if (seen[i] === 'ok' && a.outcome === 'failed' && a.errorCode === 'timeout') seen[i] = 'lost';
        });
      }
      // Dead-lettered = exactly the events whose every attempt failed on the receiver's side.
      const exhausted = new Set(
        [...fates]
          .filter(([, seen]) => seen.length === DELAYS.length && seen.every((f) => FAILED.has(f)))
          .map(([id]) => id),
      );
      expect(dead).toEqual(exhausted);
      for (const messageId of dead) {
        // A dead-lettered event was processed only if one of its responses was lost after processing.
        const wasProcessed = processed.has(ids.get(messageId)!);
        expect(wasProcessed).toBe(fates.get(messageId)!.includes('lost'));
      }
      // The seeded chaos really exercised every path.
      const all = [...fates.values()].flat();
      for (const fate of ['ok', 'error500', 'hang', 'reset', 'lost'] as const) expect(all).toContain(fate);
      expect(dead.size).toBeGreaterThan(0);

      // Waits between attempts follow the schedule exactly.
      for (const delivery of deliveries.slice(0, 60)) {
        const attempts = (await outbox.listAttempts({ deliveryId: delivery.id })).reverse();
        expect(attempts.length).toBe(fates.get(delivery.messageId)!.length);
        const gaps = attempts.slice(1).map((a, i) => a.startedAt - attempts[i]!.startedAt);
        expect(gaps).toEqual(DELAYS.slice(1, attempts.length).map((s) => s * 1000));
      }
      for (const res of hanging) res.destroy();
    },
  );
});
