/**
 * Fault: slow handlers in ack-fast mode. The worker took a batch and waited for all of it before
 * taking more, so with `concurrency: 4` three fast events waited 8 s behind one slow handler; and a
 * queue row's lease was not renewed while its handler ran, so another worker took it again every
 * `leaseMs`, each take counted as an attempt: with `maxAttempts: 3` an event was dead-lettered after
 * 2 real runs.
 *
 * Must hold: the worker takes events as slots free up, so fast events complete while a slow one is
 * still running; a running event's row stays leased (renewed) so no other worker takes it, and
 * only real handler runs count as attempts: a handler slower than the lease that always fails runs
 * exactly `maxAttempts` times, never two at once, and only then is dead-lettered.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ackFastQueue } from '../../runtime/receive/ack-fast-mode.js';
import { createReceiver } from '../../runtime/receive/receiver-web.js';
import { postgresStore } from '../../runtime/stores/postgres.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import type { IdempotencyStore } from '../../runtime/stores/types.js';
import { adopted, delivery, petstore, SECRET } from '../receiver/fixtures.js';
import { DATABASE_URL, eventually, missing, pgSchema, sleep } from './services.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-ackfast-'));
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn();
  fs.rmSync(dir, { recursive: true, force: true });
});

type Handler = (event: { data: { petId: string } }) => Promise<void>;

function ackFast(
  store: IdempotencyStore<unknown>,
  handler: Handler,
  options: { leaseMs?: number; concurrency: number; maxAttempts?: number },
) {
  const receiver = createReceiver(petstore, {
    secret: SECRET,
    store,
    ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
    ackFast: ackFastQueue({
      worker: {
        concurrency: options.concurrency,
        pollMs: 20,
        maxAttempts: options.maxAttempts ?? 10,
        backoff: () => 10,
      },
    }),
    handlers: { 'pet.adopted': handler },
  });
  cleanups.push(() => receiver.stop());
  return receiver;
}

describe('ack-fast worker', () => {
  it('runs fast events while a slow one holds a slot (no batch barrier)', async () => {
    const log: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const receiver = ackFast(
      sqliteStore(path.join(dir, 'barrier.db')),
      async ({ data }) => {
        log.push(`start ${data.petId}`);
        if (data.petId === 'slow') await gate;
        log.push(`done ${data.petId}`);
      },
      { concurrency: 4 },
    );
    cleanups.push(() => release());
    receiver.startWorker();
    expect((await receiver.handle(delivery('pet.adopted', adopted('slow')))).status).toBe(200);
    await eventually(() => log.includes('start slow'), 'the slow handler to start');
    for (const pet of ['a', 'b', 'c']) await receiver.handle(delivery('pet.adopted', adopted(pet)));
    await eventually(
      () => ['a', 'b', 'c'].every((pet) => log.includes(`done ${pet}`)),
      'the fast events to finish while the slow one runs',
      5000,
    );
    expect(log).not.toContain('done slow');
    release();
    await eventually(() => log.includes('done slow'), 'the slow handler to finish');
  });
});

interface Backend {
  readonly name: string;
  readonly skip: boolean;
  /** Two stores on one database: two workers (as if two processes) sharing the queue. */
  stores(): Promise<[IdempotencyStore<unknown>, IdempotencyStore<unknown>]>;
}

const backends: Backend[] = [
  {
    name: 'sqlite',
    skip: false,
    async stores() {
      const file = path.join(dir, 'lease.db');
      return [sqliteStore(file), sqliteStore(file)];
    },
  },
  {
    name: 'postgres',
    skip: missing('DATABASE_URL'),
    async stores() {
      const db = pgSchema('ackfast');
      cleanups.push(() => db.drop());
      const make = () => {
        const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
        cleanups.push(() => pool.end());
        return postgresStore(pool, { schema: db.schema });
      };
      const first = make();
      await first.migrate();
      return [first, make()];
    },
  },
];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`${backend.name}: a handler slower than the lease`, () => {
    it('is not taken again by another worker, and runs maxAttempts times before the dead letter', async () => {
      const LEASE_MS = 500;
      let running = 0;
      let overlap = 0;
      let runs = 0;
      const slowFailure: Handler = async () => {
        runs++;
        if (++running > 1) overlap++;
        await sleep(3 * LEASE_MS);
        running--;
        throw new Error('still failing');
      };
      const [one, two] = await backend.stores();
      const workers = [one, two].map((store) =>
        ackFast(store, slowFailure, { leaseMs: LEASE_MS, concurrency: 2, maxAttempts: 3 }),
      );
      expect((await workers[0]?.handle(delivery('pet.adopted', adopted())))?.status).toBe(200);
      for (const worker of workers) worker.startWorker();
      const queue = one.queue;
      if (queue === undefined) throw new Error('no queue');
      await eventually(async () => (await queue.counts()).failed === 1, 'the dead letter', 20_000);
      expect(runs).toBe(3);
      expect(overlap).toBe(0);
      expect(await queue.counts()).toEqual({ pending: 0, failed: 1 });
    });
  });
}
