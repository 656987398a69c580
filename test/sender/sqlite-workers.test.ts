/**
 * Several worker processes, each with its own better-sqlite3 connection, drain one SQLite outbox
 * file (WAL, busy timeout): the receiver must never serve two requests for one message at once (a
 * request the client abandoned does not count: see `served`), every message ends delivered, and every recorded attempt is a request the receiver
 * saw. First attempts fail (503) or hang past the timeout for some messages, so retries move between
 * workers, and one worker is SIGKILLed mid-run — asserted: it still holds leases right after — so
 * its leases are taken over.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../../runtime/deliver/outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { WORKERS_SCHEDULE } from './fixtures/crash-schedule.js';
import { LOCAL, petContract, readBody, startServer, tempDir } from './helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const script = path.join(here, 'fixtures/sqlite-worker.ts');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Child {
  readonly process: ChildProcess;
  attempts: number;
}

function spawnWorker(file: string, id: string): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, file, id], {
    cwd: repoRoot,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${id}] ${chunk.toString()}`));
  const handle: Child = { process: child, attempts: 0 };
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'ready') resolve(handle);
        else if (line.startsWith('attempt ')) handle.attempts++;
      }
    });
  });
}

function stop(child: ChildProcess, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

describe('several worker processes on one SQLite file', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  it('never attempt one delivery twice at once, deliver everything, lose nothing', async () => {
    const dir = tempDir('sqlite-workers');
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'outbox.db');
    const outbox = sqliteOutbox(file);
    cleanups.push(() => outbox.close());
    const contract = petContract(WORKERS_SCHEDULE);

    const index = new Map<string, number>();
    const received = new Map<string, number>();
    // Requests the receiver served, per message: [arrival, answer] in ms. Two workers attempting one
    // delivery at once show up as overlapping served requests. A request the client gave up on
    // (timeout, killed process) is left out: its worker has moved on, and a retry may arrive before
    // this process notices the closed socket — that is a retry, not two workers at once.
    const served = new Map<string, Array<[number, number]>>();
    const server = await startServer(async (req, res) => {
      const id = String(req.headers['webhook-id']);
      const arrived = performance.now();
      let closed = false;
      res.on('close', () => {
        closed = true;
      });
      await readBody(req);
      const count = (received.get(id) ?? 0) + 1;
      received.set(id, count);
      const i = index.get(id) ?? 0;
      // First attempts: every 7th hangs past the worker's 300 ms timeout, every 3rd answers 503.
      await sleep(count === 1 && i % 7 === 0 ? 600 : Math.floor(Math.random() * 8));
      if (closed) return;
      served.set(id, [...(served.get(id) ?? []), [arrived, performance.now()]]);
      res.statusCode = count === 1 && i % 3 === 0 ? 503 : 200;
      res.end();
    });
    cleanups.push(() => server.close());

    const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
    const { endpoint } = await manager.register({ url: `${server.url}/hooks`, events: ['pet.adopted'] });
    const sender = createSender(contract, { outbox });
    const N = 300;
    for (let i = 0; i < N; i++) {
      const { messageId } = await sender.send('pet.adopted', { petId: `p${i}`, by: 'w' });
      index.set(messageId, i);
    }

    const children = await Promise.all(['w0', 'w1', 'w2'].map((id) => spawnWorker(file, id)));
    cleanups.push(async () => {
      for (const c of children) await stop(c.process, 'SIGKILL');
    });
    // Once a third has arrived, kill one worker mid-delivery and start a replacement. On a loaded
    // machine w0 may be between batches at that moment, so wait (bounded) until it holds leases.
    const heldBy = async (owner: string) =>
      (await outbox.listDeliveries({ status: 'delivering', limit: 10_000 })).filter(
        (d) => d.leaseOwner === owner,
      ).length;
    for (let i = 0; i < 200 && received.size < N / 3; i++) await sleep(20);
    for (let i = 0; i < 500 && (await heldBy('w0')) === 0; i++) await sleep(2);
    const killed = children[0] as Child;
    const receivedAtKill = received.size;
    await stop(killed.process, 'SIGKILL');
    // The kill landed mid-run, on a worker with deliveries in flight (leases it will never finish).
    const orphaned = (await outbox.listDeliveries({ status: 'delivering', limit: 10_000 })).filter(
      (d) => d.leaseOwner === 'w0',
    );
    expect(killed.process.signalCode).toBe('SIGKILL');
    expect(receivedAtKill).toBeLessThan(N);
    expect(orphaned.length).toBeGreaterThan(0);
    children.push(await spawnWorker(file, 'w3'));

    for (let i = 0; i < 300; i++) {
      const open = [
        ...(await outbox.listDeliveries({ status: 'pending', limit: 1 })),
        ...(await outbox.listDeliveries({ status: 'delivering', limit: 1 })),
      ];
      if (open.length === 0) break;
      await sleep(100);
    }
    for (const c of children) await stop(c.process, 'SIGTERM');

    let overlaps = 0;
    for (const intervals of served.values()) {
      const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
      for (let k = 1; k < sorted.length; k++) {
        if ((sorted[k]?.[0] ?? 0) < (sorted[k - 1]?.[1] ?? 0)) overlaps++;
      }
    }
    expect(overlaps).toBe(0);
    const deliveries = await outbox.listDeliveries({ endpointId: endpoint.id, limit: 10_000 });
    expect(deliveries).toHaveLength(N);
    expect(deliveries.filter((d) => d.status !== 'succeeded')).toEqual([]);
    let recorded = 0;
    for (const d of deliveries) {
      const seen = received.get(d.messageId) ?? 0;
      // Every claim counts as an attempt; the killed worker may have claimed without sending.
      expect(seen).toBeGreaterThanOrEqual(1);
      expect(seen).toBeLessThanOrEqual(d.attempts);
      const rows = await outbox.listAttempts({ deliveryId: d.id, limit: 100 });
      // Every recorded attempt is a request the receiver saw, and the last one succeeded.
      expect(rows.length).toBeLessThanOrEqual(seen);
      expect(rows[0]?.outcome).toBe('succeeded');
      recorded += rows.length;
    }
    const reported = children.reduce((sum, c) => sum + c.attempts, 0);
    expect(reported).toBeLessThanOrEqual(recorded);
    const survivors = children.filter((c) => c !== killed);
    expect(survivors.filter((c) => c.attempts > 0).length).toBeGreaterThanOrEqual(2);
    console.info(
      `attempts per worker: ${children.map((c, i) => `w${i}=${c.attempts}`).join(' ')} ` +
        `(w0 SIGKILLed); ${recorded} recorded, ${[...received.values()].reduce((a, b) => a + b, 0)} received`,
    );
  }, 90_000);

  it('a lease that ended before the attempt started is handed back untried', async () => {
    const dir = tempDir('sqlite-lease');
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const outbox = sqliteOutbox(path.join(dir, 'outbox.db'));
    cleanups.push(() => outbox.close());
    let requests = 0;
    const server = await startServer((_req, res) => {
      requests++;
      res.end();
    });
    cleanups.push(() => server.close());
    const contract = petContract();
    const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
    await manager.register({ url: `${server.url}/hooks`, events: ['pet.adopted'] });
    await createSender(contract, { outbox }).send('pet.adopted', { petId: 'p1', by: 'w' });

    // An outbox whose claims come back with the lease already over (a claim that waited too long).
    let released = 0;
    const late = {
      ...outbox,
      claim: async (options: Parameters<typeof outbox.claim>[0]) =>
        (await outbox.claim(options)).map((d): ClaimedDelivery => ({ ...d, leaseUntil: options.now - 1 })),
      release: async (delivery: ClaimedDelivery, now: number) => {
        released++;
        await outbox.release(delivery, now);
      },
    };
    const worker = createWorker({ outbox: late, contract, urlPolicy: LOCAL });
    const [claimed] = await outbox.listDeliveries({ limit: 1 });
    // runOnce would claim the handed-back delivery again at once: run a single claim round instead.
    worker.start();
    for (let i = 0; i < 100 && released === 0; i++) await sleep(5);
    await worker.stop();
    expect(released).toBeGreaterThanOrEqual(1);
    expect(requests).toBe(0);
    expect(await outbox.getDelivery(claimed?.id as string)).toMatchObject({ status: 'pending', attempts: 0 });
  });
});
