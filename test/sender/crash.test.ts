/**
 * Crash safety: a worker child process is killed with SIGKILL at random moments while it delivers;
 * restarted workers take over expired leases. Every event must arrive at least once and every
 * delivery end `succeeded` — none lost — on SQLite and on PostgreSQL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
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

function spawnWorker(kind: string, target: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, kind, target], {
    cwd: repoRoot,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[crash-worker] ${chunk.toString()}`));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.once('data', () => resolve(child));
  });
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(outboxFixtures)('crash test on $name', (fixture) => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  it.skipIf(fixture.skip)(
    `${N} events survive SIGKILLed workers: all delivered at least once`,
    async () => {
      const made = await fixture.create(`crash_${fixture.name}`);
      const { outbox } = made;
      cleanups.push(made.cleanup);
      const target =
        fixture.name === 'sqlite'
          ? path.join(made.raw as string, 'outbox.db')
          : (made.raw as { schema: string }).schema;

      const received = new Map<string, number>();
      const rng = seededRng(2024);
      const server = await startServer(async (req, res) => {
        await readBody(req);
        const id = String(req.headers['webhook-id']);
        received.set(id, (received.get(id) ?? 0) + 1);
        // A little latency widens the window in which a kill lands mid-delivery.
        await sleep(Math.floor(Math.random() * 15));
        res.end('ok');
      });
      cleanups.push(() => server.close());

      const contract = petContract(CRASH_SCHEDULE);
      const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
      await manager.register({ url: `${server.url}/hooks`, events: ['pet.adopted'] });
      const sender = createSender(contract, { outbox });
      const sent: string[] = [];
      for (let i = 0; i < N; i++)
        sent.push((await sender.send('pet.adopted', { petId: `p${i}`, by: 'x' })).messageId);

      const children: ChildProcess[] = [];
      cleanups.push(async () => {
        for (const c of children) await kill(c);
      });
      let kills = 0;
      // Kill workers at random moments while deliveries are under way.
      for (let round = 0; round < 5; round++) {
        const child = await spawnWorker(fixture.name, target);
        children.push(child);
        await sleep(100 + Math.floor(rng() * 400));
        await kill(child);
        kills++;
      }
      const before = received.size;
      // A final worker (two, to also exercise sharing) finishes the job.
      children.push(await spawnWorker(fixture.name, target), await spawnWorker(fixture.name, target));
      for (let i = 0; i < 200; i++) {
        const pending = await outbox.listDeliveries({ status: 'pending', limit: 1 });
        const delivering = await outbox.listDeliveries({ status: 'delivering', limit: 1 });
        if (pending.length === 0 && delivering.length === 0) break;
        await sleep(100);
      }
      for (const c of children) await kill(c);

      const deliveries = await outbox.listDeliveries({ limit: 10_000 });
      expect(deliveries).toHaveLength(N);
      expect(deliveries.filter((d) => d.status !== 'succeeded')).toEqual([]);
      for (const id of sent) expect(received.get(id) ?? 0).toBeGreaterThanOrEqual(1);
      const duplicates = [...received.values()].filter((c) => c > 1).length;
      console.info(
        `crash test (${fixture.name}): ${kills} kills, ${before}/${N} delivered before the final workers, ` +
          `${duplicates} events delivered more than once (at-least-once)`,
      );
    },
    90_000,
  );
});
