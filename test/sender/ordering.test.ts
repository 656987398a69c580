/**
 * Ordering keys (FIFO per key and endpoint). Three worker processes deliver ordered and unordered
 * traffic to a chaos receiver on 127.0.0.1 (500s, delays past the attempt timeout, responses lost
 * after the request was processed): per key, each message is first received only after the one
 * before it was answered 2xx, so first receipts come in send order. And, in process: a later message
 * waits while an earlier one retries, a dead-lettered message releases the key, unordered traffic
 * and other keys are not held back, a redelivered message takes its place again. SQLite and PostgreSQL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createSender } from '../../runtime/deliver/sender.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { isWebhookError } from '../../runtime/errors.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { CRASH_SCHEDULE } from './fixtures/crash-schedule.js';
import {
  LOCAL,
  outboxFixtures,
  petContract,
  readBody,
  seededRng,
  startServer,
  virtualClock,
} from './helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const script = path.join(here, 'fixtures/crash-worker.ts');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function spawnWorker(kind: string, target: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, kind, target], {
    cwd: repoRoot,
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[ordering-worker] ${chunk.toString()}`));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.once('data', () => resolve(child));
  });
}

interface Arrival {
  readonly id: string;
  readonly key: string | undefined;
  readonly at: number;
  /** When the receiver answered it 2xx (undefined: failed, or its response was lost). */
  answeredAt?: number;
}

const KEYS = ['cust_a', 'cust_b', 'cust_c', 'cust_d'];
const PER_KEY = 12;
const UNORDERED = 30;

describe.each(outboxFixtures)('ordering keys on $name', (fixture) => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  it.skipIf(fixture.skip)(
    'three worker processes and a chaos receiver: per key, each message arrives only after the previous one was answered 2xx',
    async () => {
      const made = await fixture.create(`order_${fixture.name}`);
      const { outbox } = made;
      cleanups.push(made.cleanup);
      const target =
        fixture.name === 'sqlite'
          ? path.join(made.raw as string, 'outbox.db')
          : (made.raw as { schema: string }).schema;

      const rng = seededRng(7);
      const arrivals: Arrival[] = [];
      const server = await startServer(async (req, res) => {
        const body = JSON.parse((await readBody(req)).toString()) as { data: { by: string } };
        const key = body.data.by.startsWith('cust_') ? body.data.by : undefined;
        const arrival: Arrival = { id: String(req.headers['webhook-id']), key, at: performance.now() };
        arrivals.push(arrival);
        const roll = rng();
        if (roll < 0.2) {
          res.writeHead(503).end('busy');
          return;
        }
        if (roll < 0.3) {
          // Processed, then the response is lost: the worker sees a reset and retries.
          req.socket.destroy();
          return;
        }
        if (roll < 0.4) await sleep(roll < 0.35 ? 650 : 80); // past the 500 ms timeout, or merely slow
        if (res.destroyed) return;
        res.end('ok');
        arrival.answeredAt = performance.now();
      });
      cleanups.push(() => server.close());

      const manager = createEndpointManager({ outbox, contract: petContract(), urlPolicy: LOCAL });
      await manager.register({ url: `${server.url}/hook`, events: ['pet.adopted'] });
      const sender = createSender(petContract(CRASH_SCHEDULE), { outbox });

      const workers = await Promise.all([0, 1, 2].map(() => spawnWorker(fixture.name, target)));
      cleanups.push(() => {
        for (const w of workers) w.kill('SIGKILL');
      });

      // Sends one after another, keys interleaved with unordered traffic, while the workers run.
      const sent = new Map<string, string[]>(KEYS.map((k) => [k, []]));
      let unordered = 0;
      for (let i = 0; i < PER_KEY; i++) {
        for (const key of KEYS) {
          const { messageId } = await sender.send(
            'pet.adopted',
            { petId: `${key}_${i}`, by: key },
            { orderingKey: key },
          );
          sent.get(key)?.push(messageId);
          if (unordered < UNORDERED && rng() < 0.7) {
            await sender.send('pet.adopted', { petId: `free_${unordered++}`, by: 'anyone' });
          }
        }
      }
      const total = KEYS.length * PER_KEY + unordered;
      const deadline = Date.now() + 90_000;
      for (;;) {
        const done = await outbox.listDeliveries({ status: 'succeeded', limit: 10_000 });
        if (done.length === total) break;
        if (Date.now() > deadline) throw new Error(`${done.length}/${total} succeeded before the deadline`);
        await sleep(100);
      }

      // The chaos happened: failures, lost responses and timeouts forced retries of keyed messages.
      const keyed = arrivals.filter((a) => a.key !== undefined);
      expect(keyed.length).toBeGreaterThan(KEYS.length * PER_KEY + 10);
      for (const key of KEYS) {
        const order = sent.get(key) ?? [];
        const mine = arrivals.filter((a) => a.key === key);
        const firsts = [...new Set(mine.map((a) => a.id))];
        expect(firsts).toEqual(order);
        for (let i = 1; i < order.length; i++) {
          const first = mine.find((a) => a.id === order[i]) as Arrival;
          const previousAnswered = mine.filter(
            (a) => a.id === order[i - 1] && a.answeredAt !== undefined && a.answeredAt <= first.at,
          );
          expect(
            previousAnswered.length,
            `${key} #${i} arrived before #${i - 1} was answered`,
          ).toBeGreaterThan(0);
        }
      }
      const deliveries = await outbox.listDeliveries({ limit: 10_000 });
      expect(new Set(deliveries.filter((d) => d.orderingKey).map((d) => d.orderingKey))).toEqual(
        new Set(KEYS),
      );
    },
    120_000,
  );

  it.skipIf(fixture.skip)(
    'a later message waits while the earlier retries; a dead one releases the key; others are not held',
    async () => {
      const made = await fixture.create(`order_rules_${fixture.name}`);
      const { outbox } = made;
      cleanups.push(made.cleanup);
      const answers = new Map<string, number[]>();
      const seen: string[] = [];
      const server = await startServer(async (req, res) => {
        const body = JSON.parse((await readBody(req)).toString()) as { data: { petId: string } };
        seen.push(body.data.petId);
        const script = answers.get(body.data.petId) ?? [];
        res.writeHead(script.shift() ?? 200).end();
      });
      cleanups.push(() => server.close());
      const clock = virtualClock(Date.now());
      const manager = createEndpointManager({
        outbox,
        contract: petContract(),
        urlPolicy: LOCAL,
        now: clock.now,
      });
      await manager.register({ url: `${server.url}/hook`, events: ['pet.adopted'] });
      const contract = petContract({ kind: 'list', delays: [0, 60, 60] });
      const sender = createSender(contract, { outbox, now: clock.now });
      const worker = createWorker({
        outbox,
        contract,
        urlPolicy: LOCAL,
        now: clock.now,
        disableAfterFailures: 0,
      });

      answers.set('a1', [503]); // retries once, then succeeds
      answers.set('a2', [400]); // dead at once
      for (const id of ['a1', 'a2', 'a3'])
        await sender.send('pet.adopted', { petId: id, by: 'x' }, { orderingKey: 'a' });
      await sender.send('pet.adopted', { petId: 'b1', by: 'x' }, { orderingKey: 'b' });
      await sender.send('pet.adopted', { petId: 'free', by: 'x' });

      await worker.runOnce();
      // a1 failed and waits 60 s: a2 and a3 wait behind it; b1 and the unordered one went.
      expect(seen.sort()).toEqual(['a1', 'b1', 'free']);
      seen.length = 0;
      clock.advance(30_000);
      await worker.runOnce();
      expect(seen).toEqual([]);
      clock.advance(31_000);
      await worker.runOnce();
      // a1 succeeds, then a2 is attempted and dead-lettered, which releases the key for a3.
      expect(seen).toEqual(['a1', 'a2', 'a3']);
      const dead = await outbox.listDeliveries({ status: 'dead' });
      expect(dead.map((d) => d.orderingKey)).toEqual(['a']);

      // Redelivered, the dead one is the key's head again: a later send waits for it.
      seen.length = 0;
      await sender.redeliver({ deliveryId: (dead[0] as { id: string }).id });
      answers.set('a2', [503]);
      await sender.send('pet.adopted', { petId: 'a4', by: 'x' }, { orderingKey: 'a' });
      await worker.runOnce();
      expect(seen).toEqual(['a2']);
      clock.advance(61_000);
      await worker.runOnce();
      expect(seen).toEqual(['a2', 'a2', 'a4']);
    },
  );
});

describe('orderingKey validation', () => {
  it('refuses an empty or oversized key with a typed error, before anything is stored', async () => {
    const made = await (outboxFixtures[0] as (typeof outboxFixtures)[0]).create('order_invalid');
    try {
      const sender = createSender(petContract(), { outbox: made.outbox });
      for (const orderingKey of ['', 'k'.repeat(201), 42 as unknown as string]) {
        const error = await sender
          .send('pet.adopted', { petId: 'p', by: 'x' }, { orderingKey })
          .catch((e: unknown) => e);
        expect(isWebhookError(error, 'invalid_argument')).toBe(true);
        expect((error as { details?: unknown }).details).toEqual({ option: 'orderingKey' });
      }
      expect(await made.outbox.listDeliveries()).toEqual([]);
    } finally {
      await made.cleanup();
    }
  });
});
