/**
 * Fault: the connection to PostgreSQL drops (server restart, network cut) while the receiver or the
 * outbox worker holds a checked-out client. pg emits 'error' on the client; with no listener Node
 * throws and the process dies: the receiver died on every cut during a transactional handler, the
 * outbox worker in 2 of 5 runs.
 *
 * Must hold: the process keeps running. The cut delivery is answered 503 (store_error, Retry-After),
 * its transaction is rolled back, and after the network is back the sender's retry is processed
 * exactly once; a cut while clients sit idle in the pool is survived too. The outbox worker treats
 * a cut as a failed operation and retries: after the cuts every message is delivered.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { adopted, delivery } from '../receiver/fixtures.js';
import { post } from '../receiver/http.js';
import { LOCAL, petContract, readBody, startServer } from '../sender/helpers.js';
import { DATABASE_URL, eventually, missing, pgSchema, sleep } from './services.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

interface Child {
  readonly url: string;
  readonly send: (line: string) => void;
  readonly waitFor: (prefix: string) => Promise<string>;
  readonly alive: () => boolean;
  readonly stderr: () => string;
}

async function startReceiver(env: Record<string, string>): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'cut-receiver-child.ts')], {
    cwd: path.resolve(here, '../..'),
    env: { ...process.env, ...env, NODE_ENV: 'test' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  cleanups.push(() => child.kill('SIGKILL'));
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const alive = () => child.exitCode === null && child.signalCode === null;
  /** Resolves with the next output line starting with `prefix`, and consumes it. */
  const waitFor = async (prefix: string): Promise<string> => {
    let found: string | undefined;
    await eventually(() => {
      if (!alive()) throw new Error(`receiver exited (${child.exitCode ?? child.signalCode}): ${err}`);
      found = out.split('\n').find((l) => l.startsWith(prefix));
      return found !== undefined;
    }, prefix);
    out = out.replace(found as string, '');
    return found as string;
  };
  const port = (await waitFor('LISTENING')).split(' ')[1];
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    send: (line) => child.stdin.write(`${line}\n`),
    waitFor,
    alive,
    stderr: () => err,
  };
}

describe.skipIf(missing('DATABASE_URL'))('a dropped PostgreSQL connection', () => {
  let proxy: TcpProxy;

  it('during a transactional handler: 503, the receiver lives, the retry is processed once', async () => {
    proxy = await startTcpProxy();
    cleanups.push(() => proxy.close());
    const db = pgSchema('cut_rx');
    cleanups.push(() => db.drop());
    await db.pool.query(`CREATE SCHEMA "${db.schema}"`);
    await db.pool.query(`CREATE TABLE "${db.schema}".adoptions (pet text NOT NULL, event text NOT NULL)`);
    const receiver = await startReceiver({ DB: proxy.via(DATABASE_URL ?? ''), SCHEMA: db.schema });

    const d = delivery('pet.adopted', adopted('rex'));
    const answer = post(receiver.url, d);
    await receiver.waitFor('HANDLER_STARTED');
    proxy.cut();
    receiver.send('go');
    const cut = await answer;
    expect(cut.status).toBe(503);
    expect(JSON.parse(cut.body)).toMatchObject({ error: { code: 'store_error' } });
    expect(cut.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(receiver.alive()).toBe(true);
    const rows = async () =>
      (await db.pool.query(`SELECT count(*)::int AS n FROM "${db.schema}".adoptions`)).rows[0].n as number;
    expect(await rows()).toBe(0);

    // The provider retries: processed once, and once only.
    const retried = await post(receiver.url, d);
    expect(retried.status).toBe(200);
    expect(JSON.parse(retried.body)).toEqual({ status: 'processed' });
    expect(JSON.parse((await post(receiver.url, d)).body)).toEqual({ status: 'already processed' });
    expect(await rows()).toBe(1);

    // A cut while the pool's clients sit idle is survived as well.
    proxy.cut();
    await sleep(100);
    expect(receiver.alive()).toBe(true);
    const next = await post(receiver.url, delivery('pet.adopted', adopted('fido')));
    expect(next.status).toBe(200);
    expect(await rows()).toBe(2);
    expect(receiver.alive()).toBe(true);
  });

  it('under the outbox worker: it keeps running and delivers every message after the cuts', async () => {
    proxy ??= await startTcpProxy();
    const db = pgSchema('cut_ob');
    cleanups.push(() => db.drop());
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    cleanups.push(() => process.off('uncaughtException', onUncaught));

    const contract = petContract({ kind: 'list', delays: [0, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05] });
    const outbox = postgresOutbox(db.pool, { schema: db.schema });
    const delivered = new Set<string>();
    const server = await startServer(async (req, res) => {
      await readBody(req);
      await sleep(5);
      delivered.add(String(req.headers['webhook-id']));
      res.end();
    });
    cleanups.push(() => server.close());
    // A rate-limited endpoint: claims take the transactional path (a checked-out client).
    const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
    await manager.register({ url: `${server.url}/hooks`, events: ['pet.adopted'], rateLimit: 10_000 });
    const sender = createSender(contract, { outbox });
    const ids: string[] = [];
    for (let i = 0; i < 60; i++)
      ids.push((await sender.send('pet.adopted', { petId: `p${i}`, by: 'w' })).messageId);

    const viaProxy = new pg.Pool({ connectionString: proxy.via(DATABASE_URL ?? ''), max: 4 });
    cleanups.push(() => viaProxy.end());
    const errors: unknown[] = [];
    const worker = createWorker({
      outbox: postgresOutbox(viaProxy, { schema: db.schema }),
      contract,
      urlPolicy: LOCAL,
      concurrency: 8,
      pollIntervalMs: 5,
      timeoutMs: 1000,
      leaseMs: 2000,
      onError: (error) => errors.push(error),
    });
    worker.start();
    cleanups.push(() => worker.stop());
    for (let i = 0; i < 15; i++) {
      await sleep(25);
      proxy.cut();
    }
    await eventually(() => ids.every((id) => delivered.has(id)), 'every message delivered', 20_000);
    expect(uncaught).toEqual([]);
    expect(errors.length).toBeGreaterThan(0);
  });
});
