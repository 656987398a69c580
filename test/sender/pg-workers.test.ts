/**
 * Several workers on PostgreSQL (separate pools, running concurrently) share one outbox: the
 * receiver counts requests in flight per delivery id and must never see two at once, and every
 * attempt the outbox recorded is one the receiver saw.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import {
  DATABASE_URL,
  LOCAL,
  petContract,
  pgSchema,
  readBody,
  startServer,
  warnNoDatabase,
} from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(warnNoDatabase('the multi-worker PostgreSQL test'))('several workers on PostgreSQL', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  it('never deliver the same delivery twice at the same time', async () => {
    const db = await pgSchema('workers');
    cleanups.push(() => db.drop());
    const outbox = postgresOutbox(db.pool, { schema: db.schema });
    const contract = petContract({ kind: 'list', delays: [0, 0.05, 0.05, 0.05, 0.05] });

    const inFlight = new Map<string, number>();
    const received = new Map<string, number>();
    let overlaps = 0;
    const server = await startServer(async (req, res) => {
      await readBody(req);
      const id = String(req.headers['webhook-id']);
      const now = (inFlight.get(id) ?? 0) + 1;
      inFlight.set(id, now);
      if (now > 1) overlaps++;
      const count = (received.get(id) ?? 0) + 1;
      received.set(id, count);
      await sleep(Math.floor(Math.random() * 10));
      inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
      // Every third event fails its first attempt, so retries move between workers too.
      const fail = count === 1 && Number.parseInt(id.slice(-2), 36) % 3 === 0;
      res.statusCode = fail ? 503 : 200;
      res.end();
    });
    cleanups.push(() => server.close());

    const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
    const { endpoint } = await manager.register({ url: `${server.url}/hooks`, events: ['pet.adopted'] });
    const sender = createSender(contract, { outbox });
    const N = 300;
    for (let i = 0; i < N; i++) await sender.send('pet.adopted', { petId: `p${i}`, by: 'w' });

    const attemptsBy = new Map<string, number>();
    const workers = [0, 1, 2].map((i) => {
      const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
      cleanups.push(() => pool.end());
      return createWorker({
        id: `worker-${i}`,
        outbox: postgresOutbox(pool, { schema: db.schema }),
        contract,
        urlPolicy: LOCAL,
        concurrency: 8,
        pollIntervalMs: 20,
        timeoutMs: 2000,
        leaseMs: 10_000,
        onAttempt: () => attemptsBy.set(`worker-${i}`, (attemptsBy.get(`worker-${i}`) ?? 0) + 1),
        onError: (error) => {
          throw error;
        },
      });
    });
    for (const w of workers) w.start();
    for (let i = 0; i < 300; i++) {
      const open = [
        ...(await outbox.listDeliveries({ status: 'pending', limit: 1 })),
        ...(await outbox.listDeliveries({ status: 'delivering', limit: 1 })),
      ];
      if (open.length === 0) break;
      await sleep(100);
    }
    await Promise.all(workers.map((w) => w.stop()));

    expect(overlaps).toBe(0);
    const deliveries = await outbox.listDeliveries({ endpointId: endpoint.id, limit: 10_000 });
    expect(deliveries).toHaveLength(N);
    expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true);
    // Each recorded attempt was one request, and no request went unrecorded.
    for (const d of deliveries) expect(received.get(d.messageId)).toBe(d.attempts);
    const total = [...attemptsBy.values()].reduce((a, b) => a + b, 0);
    expect(total).toBe([...received.values()].reduce((a, b) => a + b, 0));
    expect(attemptsBy.size).toBeGreaterThanOrEqual(2);
    console.info(`attempts per worker: ${JSON.stringify(Object.fromEntries(attemptsBy))}`);
  }, 60_000);
});
