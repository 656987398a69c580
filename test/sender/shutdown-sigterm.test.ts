/**
 * SIGTERM mid-delivery: a worker child process delivers to a real local receiver that then stops
 * answering (the attempts hang); the child's SIGTERM handler calls `worker.stop({ timeoutMs })` as
 * docs/shutdown.md shows. The cut-off attempts must come back `pending` with their attempt not
 * counted (never `dead`, never stuck `delivering` under the 30 s lease), and a second worker process
 * must then deliver every message: none lost, none dead-lettered, each answered 2xx exactly once,
 * repeats only for the requests the stop cut off (at-least-once). On SQLite and on PostgreSQL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { LOCAL, outboxFixtures, petContract, readBody, startServer, warnNoDatabase } from './helpers.js';

warnNoDatabase('the PostgreSQL SIGTERM test');

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const script = path.join(here, 'fixtures/shutdown-worker.ts');
const N = 24;

interface Child {
  readonly child: ChildProcess;
  readonly out: string[];
  readonly exited: Promise<number | null>;
}

function spawnWorker(kind: string, target: string, stopMs: number): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, kind, target, String(stopMs)], {
    cwd: repoRoot,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[shutdown-worker] ${chunk.toString()}`));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.on('data', (chunk: Buffer) => {
      out.push(...chunk.toString().split('\n').filter(Boolean));
      if (out[0] === 'ready') resolve({ child, out, exited });
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, done: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

async function byStatus(outbox: Outbox): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const d of await outbox.listDeliveries({ limit: 1000 }))
    counts[d.status] = (counts[d.status] ?? 0) + 1;
  return counts;
}

describe.each(outboxFixtures)('SIGTERM during a delivery on $name', (fixture) => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  it.skipIf(fixture.skip)(
    'the stop releases the hanging attempts uncounted; the next process delivers all, none dead',
    async () => {
      const made = await fixture.create(`sigterm_${fixture.name}`);
      const { outbox } = made;
      cleanups.push(made.cleanup);
      const target =
        fixture.name === 'sqlite'
          ? path.join(made.raw as string, 'outbox.db')
          : (made.raw as { schema: string }).schema;

      const received = new Map<string, number>();
      const answered = new Map<string, number>();
      let hang = false;
      let recovered = false;
      const hung: { id: string; res: http.ServerResponse }[] = [];
      const server = await startServer(async (req, res) => {
        await readBody(req);
        const id = String(req.headers['webhook-id']);
        received.set(id, (received.get(id) ?? 0) + 1);
        // Once a few are answered, the receiver turns slow: the worker's attempts stay in flight.
        if (!recovered && (hang || answered.size >= 5)) {
          hang = true;
          hung.push({ id, res });
          return;
        }
        res.end('ok');
        answered.set(id, (answered.get(id) ?? 0) + 1);
      });
      cleanups.push(() => server.close());

      const contract = petContract();
      const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
      await manager.register({ url: `${server.url}/hooks`, events: ['pet.adopted'] });
      const sender = createSender(contract, { outbox });
      const sent: string[] = [];
      for (let i = 0; i < N; i++)
        sent.push((await sender.send('pet.adopted', { petId: `p${i}`, by: 'x' })).messageId);

      const first = await spawnWorker(fixture.name, target, 300);
      cleanups.push(() => void first.child.kill('SIGKILL'));
      await until('attempts hanging in the receiver', () => hung.length >= 2);
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      // Every request the slow receiver got until the exit was cut off by the stop.
      const inFlight = hung.map((h) => h.id);
      const result = JSON.parse(first.out[1] ?? 'null') as { drained: number; released: number };
      // Every hanging attempt was cut off and handed back; none of them was recorded as a failure.
      expect(result.released).toBeGreaterThanOrEqual(inFlight.length);
      for (const id of inFlight) {
        const [d] = await outbox.listDeliveries({ messageId: id });
        expect(d?.status).toBe('pending');
        expect(d?.attempts).toBe(0);
        expect(await outbox.listAttempts({ deliveryId: d?.id as string })).toEqual([]);
      }
      expect((await byStatus(outbox)).delivering ?? 0).toBe(0);
      expect((await byStatus(outbox)).dead ?? 0).toBe(0);

      // The receiver recovers; a second process drains well inside the first one's 30 s lease.
      recovered = true;
      answered.clear();
      for (const id of sent) if (received.has(id) && !hung.some((h) => h.id === id)) answered.set(id, 1);
      for (const h of hung) h.res.destroy();
      const second = await spawnWorker(fixture.name, target, 1000);
      cleanups.push(() => void second.child.kill('SIGKILL'));
      await until('every delivery to succeed', async () => (await byStatus(outbox)).succeeded === N);
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);

      expect(await byStatus(outbox)).toEqual({ succeeded: N });
      for (const id of sent) {
        expect(answered.get(id), `answered ${id}`).toBe(1);
        // A repeat only where the stop cut an attempt off (the receiver dedupes on the message id).
        if ((received.get(id) ?? 0) > 1) expect(inFlight).toContain(id);
      }
    },
    60_000,
  );
});
