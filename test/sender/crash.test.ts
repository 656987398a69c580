/**
 * Crash safety: a delivery worker child process is SIGKILLed five times while it delivers, each time
 * with requests in flight — the receiver holds them unanswered, so the kill provably lands mid-run
 * and mid-attempt — and restarted workers take over the expired leases. Then: every delivery ends
 * `succeeded` with exactly one successful attempt, every event was answered 2xx at least once (the
 * attempts cut short by a kill included), and nothing that was already `succeeded` at a kill is sent
 * again. On SQLite and on PostgreSQL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { CRASH_SCHEDULE } from './fixtures/crash-schedule.js';
import {
  LOCAL,
  outboxFixtures,
  petContract,
  readBody,
  seededRng,
  startServer,
  warnNoDatabase,
} from './helpers.js';

warnNoDatabase('the PostgreSQL crash test');

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const script = path.join(here, 'fixtures/crash-worker.ts');
const N = 150;
const ROUNDS = 5;

interface Worker {
  readonly child: ChildProcess;
  /** Resolves with the signal that ended the process (null when it exited by itself). */
  readonly exited: Promise<NodeJS.Signals | null>;
}

function spawnWorker(kind: string, target: string): Promise<Worker> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, kind, target], {
    cwd: repoRoot,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[crash-worker] ${chunk.toString()}`));
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.once('data', () => resolve({ child, exited }));
  });
}

async function kill(worker: Worker): Promise<NodeJS.Signals | null> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGKILL');
  return worker.exited;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, done: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

async function open(outbox: Outbox): Promise<number> {
  const pending = await outbox.listDeliveries({ status: 'pending', limit: 10_000 });
  const delivering = await outbox.listDeliveries({ status: 'delivering', limit: 10_000 });
  return pending.length + delivering.length;
}

/** A request the receiver holds unanswered, standing for an attempt in flight. */
interface Held {
  readonly id: string;
  readonly res: http.ServerResponse;
  /** The worker's side closed the connection (its timeout, or its death). */
  closed: boolean;
}

interface Kill {
  readonly signal: NodeJS.Signals | null;
  /** Held requests whose connection was still open when the signal was sent. */
  readonly inFlight: readonly string[];
  /** Status of those deliveries right after the kill. */
  readonly statusAfter: readonly string[];
  readonly openAfter: number;
  readonly answeredAtKill: number;
  /** Deliveries already succeeded at the kill, with the requests received for each by then. */
  readonly succeededAtKill: ReadonlyMap<string, number>;
}

describe.each(outboxFixtures)('crash test on $name', (fixture) => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  it.skipIf(fixture.skip)(
    `${N} events survive ${ROUNDS} SIGKILLs that land mid-delivery: each delivered, none lost, none resent once done`,
    async () => {
      const made = await fixture.create(`crash_${fixture.name}`);
      const { outbox } = made;
      cleanups.push(made.cleanup);
      const target =
        fixture.name === 'sqlite'
          ? path.join(made.raw as string, 'outbox.db')
          : (made.raw as { schema: string }).schema;

      const rng = seededRng(2024);
      const received = new Map<string, number>();
      const answered = new Set<string>();
      let holdFrom = Number.POSITIVE_INFINITY;
      let held: Held[] = [];
      const server = await startServer(async (req, res) => {
        await readBody(req);
        const id = String(req.headers['webhook-id']);
        received.set(id, (received.get(id) ?? 0) + 1);
        if (answered.size >= holdFrom) {
          const entry: Held = { id, res, closed: false };
          res.on('close', () => {
            entry.closed = true;
          });
          held.push(entry);
          return;
        }
        await sleep(Math.floor(Math.random() * 5));
        if (res.destroyed) return;
        res.end('ok');
        answered.add(id);
      });
      cleanups.push(() => server.close());

      const contract = petContract(CRASH_SCHEDULE);
      const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
      await manager.register({ url: `${server.url}/hooks`, events: ['pet.adopted'] });
      const sender = createSender(contract, { outbox });
      const sent: string[] = [];
      for (let i = 0; i < N; i++)
        sent.push((await sender.send('pet.adopted', { petId: `p${i}`, by: 'x' })).messageId);

      const workers: Worker[] = [];
      cleanups.push(async () => {
        for (const w of workers) await kill(w);
      });
      const kills: Kill[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const worker = await spawnWorker(fixture.name, target);
        workers.push(worker);
        // Let this worker answer a few more events, then hold what it sends next and kill it while
        // those attempts wait for their answer (well inside its 500 ms attempt timeout).
        holdFrom = answered.size + 3 + Math.floor(rng() * 12);
        await until(`round ${round}: a held request`, () => held.length > 0);
        await sleep(Math.floor(rng() * 30));
        const inFlight = held.filter((h) => !h.closed).map((h) => h.id);
        const answeredAtKill = answered.size;
        const signal = await kill(worker);
        const statusAfter: string[] = [];
        for (const id of inFlight) {
          for (const d of await outbox.listDeliveries({ messageId: id })) statusAfter.push(d.status);
        }
        const succeededAtKill = new Map(
          (await outbox.listDeliveries({ status: 'succeeded', limit: 10_000 })).map((d) => [
            d.messageId,
            received.get(d.messageId) ?? 0,
          ]),
        );
        kills.push({
          signal,
          inFlight,
          statusAfter,
          openAfter: await open(outbox),
          answeredAtKill,
          succeededAtKill,
        });
        holdFrom = Number.POSITIVE_INFINITY;
        for (const h of held) h.res.destroy();
        held = [];
      }

      // Two final workers (sharing the outbox) finish the job.
      workers.push(await spawnWorker(fixture.name, target), await spawnWorker(fixture.name, target));
      await until('every delivery to finish', async () => (await open(outbox)) === 0, 60_000);
      for (const w of workers) await kill(w);

      // Each kill was a SIGKILL that landed mid-run, with attempts in flight that it cut short.
      expect(kills).toHaveLength(ROUNDS);
      for (const k of kills) {
        expect(k.signal).toBe('SIGKILL');
        expect(k.inFlight.length).toBeGreaterThan(0);
        expect(k.statusAfter.filter((s) => s === 'succeeded')).toEqual([]);
        expect(k.openAfter).toBeGreaterThan(0);
        expect(k.answeredAtKill).toBeLessThan(N);
      }

      // Afterwards: all delivered, each delivery succeeded exactly once.
      const deliveries = await outbox.listDeliveries({ limit: 10_000 });
      expect(deliveries).toHaveLength(N);
      expect(deliveries.filter((d) => d.status !== 'succeeded')).toEqual([]);
      for (const d of deliveries) {
        const attempts = await outbox.listAttempts({ deliveryId: d.id, limit: 100 });
        expect(attempts.filter((a) => a.outcome === 'succeeded')).toHaveLength(1);
      }
      // None lost: every event, the ones cut short by a kill included, was answered 2xx at least once.
      expect(sent.filter((id) => !answered.has(id))).toEqual([]);
      for (const k of kills) expect(k.inFlight.filter((id) => !answered.has(id))).toEqual([]);
      // None resent once done: a delivery succeeded at a kill got no request after it.
      for (const k of kills) {
        const resent = [...k.succeededAtKill].filter(([id, count]) => received.get(id) !== count);
        expect(resent).toEqual([]);
      }
      const duplicates = [...received.values()].filter((c) => c > 1).length;
      console.info(
        `crash test (${fixture.name}): ${ROUNDS} kills with ${kills.map((k) => k.inFlight.length).join('/')} ` +
          `attempts in flight, answered before each kill ${kills.map((k) => k.answeredAtKill).join('/')} of ${N}; ` +
          `${duplicates} events received more than once (at-least-once)`,
      );
    },
    120_000,
  );
});
