/**
 * Delivery throughput, one run. The limit: a bare keep-alive node:http POST loop to a local receiver
 * (same concurrency, same body). Against it: the engine end to end — outbox claim under a lease,
 * Standard Webhooks signing, SSRF check, POST, classification, attempt record and state change —
 * with the SQLite outbox for 1 worker (on the main thread) and 2 workers (worker threads, each its own
 * connection to the same file), and the ordering row: one worker with one send in four carrying an
 * ordering key (64 keys) against the all-unordered run of the same round. Every ratio is taken from
 * its own round's pair; the median of the rounds is reported. With DATABASE_URL: the PostgreSQL
 * outbox against pg-boss and graphile-worker (each in the layout a pilot picks), 1 and 2 worker
 * processes each, in paired rounds, with whole-system CPU per job (bench/pg-vs-pgboss.ts).
 * `npm run bench:send` then runs the 1,000,000-delivery history rows of bench/growth.bench.ts.
 *
 *   npx tsx bench/send.bench.ts        (BENCH_MESSAGES=20000 BENCH_PG_MESSAGES=8000 BENCH_CONCURRENCY=32
 *                                       BENCH_ONLY=postgres for the PostgreSQL rows alone; the BENCH_PG_*
 *                                       knobs — rounds, processes, warm-up, pilot — are documented at
 *                                       the top of bench/pg-vs-pgboss.ts)
 *
 * The receiver runs in a worker thread so it does not share the sender's event loop: the bare loop
 * therefore uses two threads (client + receiver). CPU figures are the whole process (every thread,
 * receiver included) per request/delivery.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import type { Outbox } from '../runtime/deliver/outbox.js';
import { createSender } from '../runtime/deliver/sender.js';
import { sqliteOutbox } from '../runtime/deliver/sqlite-outbox.js';
import { createWorker } from '../runtime/deliver/worker.js';
import { createEndpointManager } from '../runtime/manage/endpoints.js';
import { startReceiver } from './lib/bare-receiver.js';
import { verdict as loadVerdict, startLoad } from './lib/load.js';
import { contract, LOCAL, payload } from './lib/order-contract.js';
import { loadAverage, median, postgresRows as postgresBench } from './pg-vs-pgboss.js';

// Enough deliveries that the engine is measured in steady state, as the bare loop is (3 s): with a
// few thousand, start-up and the drained tail were a tenth of the run.
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 20000);
// Jobs per PostgreSQL run (read again by bench/pg-vs-pgboss.ts); printed in the header line.
const PG_MESSAGES = Number(process.env.BENCH_PG_MESSAGES ?? 8000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const BARE_MS = Number(process.env.BENCH_MS ?? 3000);

/** Main-thread + receiver CPU per request/delivery (µs): steadier than wall time on a shared machine. */
let lastCpuPerOp = 0;

async function bareLoop(url: string): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const body = Buffer.from(
    JSON.stringify({
      id: 'msg_x',
      type: 'order.paid',
      timestamp: new Date().toISOString(),
      data: payload(1),
    }),
  );
  const target = new URL(url);
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: '/hook',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  let done = 0;
  const until = performance.now() + BARE_MS;
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await post();
        done++;
      }
    }),
  );
  const rate = done / ((performance.now() - start) / 1000);
  const cpu = process.cpuUsage(cpu0);
  lastCpuPerOp = (cpu.user + cpu.system) / done;
  agent.destroy();
  return rate;
}

/** A delivery worker with the bench's settings (the same in-process and in the threads). */
function benchWorker(outbox: Outbox): ReturnType<typeof createWorker> {
  return createWorker({
    outbox,
    contract,
    urlPolicy: LOCAL,
    concurrency: CONCURRENCY,
    pollIntervalMs: 5,
    disableAfterFailures: 0,
  });
}

interface Drainers {
  start(): Promise<void> | void;
  stop(): Promise<unknown>;
}

/**
 * Enqueues `messages` through `main`, then times the drainers from start until nothing is pending or
 * leased, and checks every delivery succeeded.
 */
async function engineRun(
  label: string,
  main: Outbox,
  url: string,
  drainers: Drainers,
  messages = MESSAGES,
  orderingKey: (i: number) => string | undefined = () => undefined,
): Promise<{ rate: number; enqueueRate: number }> {
  const manager = createEndpointManager({ outbox: main, contract, urlPolicy: LOCAL });
  await manager.register({ url: `${url}/hook`, events: ['order.paid'] });
  const sender = createSender(contract, { outbox: main });
  const t0 = performance.now();
  for (let i = 0; i < messages; i++) {
    const key = orderingKey(i);
    await sender.send('order.paid', payload(i), key === undefined ? {} : { orderingKey: key });
  }
  const enqueueRate = messages / ((performance.now() - t0) / 1000);
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  await drainers.start();
  // nextDueAt() is an index lookup: undefined once nothing is pending or leased. Polled often, so
  // the end of the run is not rounded up.
  while ((await main.nextDueAt()) !== undefined) await new Promise((r) => setTimeout(r, 2));
  const elapsed = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  lastCpuPerOp = (cpu.user + cpu.system) / messages;
  await drainers.stop();
  const succeeded = await main.listDeliveries({ status: 'succeeded', limit: messages + 1 });
  if (succeeded.length !== messages) throw new Error(`${label}: ${succeeded.length}/${messages} delivered`);
  return { rate: messages / elapsed, enqueueRate };
}

/** Workers on this thread, one per outbox (connection). */
function inProcess(outboxes: Outbox[]): Drainers {
  const workers = outboxes.map(benchWorker);
  return {
    start: () => {
      for (const w of workers) w.start();
    },
    stop: () => Promise.all(workers.map((w) => w.stop())),
  };
}

/**
 * A delivery worker in a worker thread (this file is its entry): on `run` it opens its own
 * connection to the given SQLite file and starts, on `stop` it stops and closes. The threads live
 * across rounds, so their JIT is as warm as the main thread's.
 */
type ThreadCommand = { type: 'run'; file: string } | { type: 'stop' };
function serveThread(): void {
  const port = parentPort;
  if (!port) return;
  let current: { worker: ReturnType<typeof createWorker>; outbox: Outbox } | undefined;
  port.on('message', async (command: ThreadCommand) => {
    if (command.type === 'run') {
      const outbox = sqliteOutbox(command.file);
      await outbox.init();
      const worker = benchWorker(outbox);
      current = { worker, outbox };
      worker.start();
      port.postMessage('started');
    } else {
      await current?.worker.stop();
      await current?.outbox.close();
      current = undefined;
      port.postMessage('stopped');
    }
  });
  port.postMessage('ready');
}

interface ThreadPool {
  run(file: string): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

async function startThreads(count: number): Promise<ThreadPool> {
  // tsx's loader does not reach worker threads by itself: register it there, then load this file.
  const entry = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const threads = Array.from({ length: count }, () => new Worker(entry, { eval: true }));
  const reply = (w: Worker, expected: string) =>
    new Promise<void>((resolve, reject) => {
      const onMessage = (m: unknown) => {
        if (m !== expected) return;
        w.off('message', onMessage);
        w.off('error', reject);
        resolve();
      };
      w.on('message', onMessage);
      w.once('error', reject);
    });
  await Promise.all(threads.map((w) => reply(w, 'ready')));
  const all = async (command: ThreadCommand, expected: string) => {
    const replies = threads.map((w) => reply(w, expected));
    for (const w of threads) w.postMessage(command);
    await Promise.all(replies);
  };
  return {
    run: (file) => all({ type: 'run', file }, 'started'),
    stop: () => all({ type: 'stop' }, 'stopped'),
    close: async () => {
      await Promise.all(threads.map((w) => w.terminate()));
    },
  };
}

/** The SQLite engine with its workers in threads: enqueue on the main thread, drain from the threads. */
async function threadedSqliteRun(
  pool: ThreadPool,
  url: string,
): Promise<{ rate: number; enqueueRate: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-threads-'));
  const file = path.join(dir, 'outbox.db');
  const main = sqliteOutbox(file);
  try {
    return await engineRun('threads', main, url, { start: () => pool.run(file), stop: () => pool.stop() });
  } finally {
    await main.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const fmt = (n: number) => `${Math.round(n).toLocaleString('en-US')}/s`;

/**
 * PostgreSQL: the outbox against pg-boss and graphile-worker, each peer in the layout its pilot picks,
 * paired rounds at 1 and 2 worker processes, whole-system CPU per job (bench/pg-vs-pgboss.ts, which
 * documents its knobs).
 */
async function postgresRows(): Promise<void> {
  await postgresBench({
    contract,
    send: (sender, i) => sender.send('order.paid', payload(i)),
    body: (i) =>
      JSON.stringify({
        id: `msg_${i}`,
        type: 'order.paid',
        timestamp: new Date().toISOString(),
        data: payload(i),
      }),
    concurrency: CONCURRENCY,
  });
}

const THREADS = Number(process.env.BENCH_SQLITE_THREADS ?? 2);

async function main(): Promise<void> {
  const receiver = await startReceiver();
  if (process.env.BENCH_ONLY === 'postgres') {
    await bareLoop(receiver.url);
    await postgresRows();
    await receiver.stop();
    return;
  }
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs, ${MESSAGES} messages (PostgreSQL ${PG_MESSAGES}), concurrency ${CONCURRENCY} per worker, 270-byte payloads\n`,
  );
  const machine = startLoad();
  const pool = await startThreads(THREADS);
  // Warm up the receiver and the JIT of every path (a cold first run measures the compiler, not the engine).
  await bareLoop(receiver.url);
  {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-warm-'));
    const warm = sqliteOutbox(path.join(dir, 'outbox.db'));
    await engineRun('warm-up', warm, receiver.url, inProcess([warm]), 4000);
    await warm.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  await threadedSqliteRun(pool, receiver.url);
  // The machine may be shared: interleave the limit and the SQLite engines; each ratio is taken from
  // its own round's pair and the median of the rounds reported.
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
  const rounds: {
    bare: number;
    bareCpu: number;
    one: number;
    oneCpu: number;
    many: number;
    manyCpu: number;
    mixed: number;
  }[] = [];
  // One send in four carries an ordering key (64 keys): the claim skips a key's later deliveries.
  // (i / 4) % 64, not i % 64: of the multiples of 4, i % 64 takes only 16 values.
  const mixedKey = (i: number) => (i % 4 === 0 ? `customer-${(i / 4) % 64}` : undefined);
  const sqliteRun = async (key?: (i: number) => string | undefined) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
    try {
      const sqlite = sqliteOutbox(path.join(dir, 'outbox.db'));
      const r = await engineRun('sqlite', sqlite, receiver.url, inProcess([sqlite]), MESSAGES, key);
      await sqlite.close();
      return { ...r, cpu: lastCpuPerOp };
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  for (let round = 1; round <= ROUNDS; round++) {
    const limit = await bareLoop(receiver.url);
    const limitCpu = lastCpuPerOp;
    const s = await sqliteRun();
    const t = await threadedSqliteRun(pool, receiver.url);
    const manyCpu = lastCpuPerOp;
    const m = await sqliteRun(mixedKey);
    rounds.push({
      bare: limit,
      bareCpu: limitCpu,
      one: s.rate,
      oneCpu: s.cpu,
      many: t.rate,
      manyCpu,
      mixed: m.rate,
    });
    console.log(
      `round ${round}: bare loop ${fmt(limit)} (${Math.round(limitCpu)} µs CPU/request); ` +
        `SQLite 1 worker ${fmt(s.rate)} (${Math.round(s.cpu)} µs CPU/delivery); ` +
        `SQLite ${THREADS} workers ${fmt(t.rate)} (${Math.round(manyCpu)} µs CPU/delivery); ` +
        `1 worker, 1 in 4 sends keyed ${fmt(m.rate)}; send() ${fmt(s.enqueueRate)}; load average ${loadAverage()}`,
    );
  }
  await pool.close();
  const med = (f: (r: (typeof rounds)[number]) => number) => median(rounds.map(f));
  const one = { rate: med((r) => r.one / r.bare), cpu: med((r) => r.bareCpu / r.oneCpu) };
  const many = { rate: med((r) => r.many / r.bare), cpu: med((r) => r.bareCpu / r.manyCpu) };
  const mixed = med((r) => r.mixed / r.one);
  console.log('');
  console.log(`bare keep-alive POST loop, 2 threads (client+receiver)  median ${fmt(med((r) => r.bare))}`);
  console.log(
    `engine, SQLite outbox, 1 worker (main thread)          median ${fmt(med((r) => r.one))} → ${one.rate.toFixed(2)}× the limit (CPU-cost ratio ${one.cpu.toFixed(2)}×)`,
  );
  console.log(
    `engine, SQLite outbox, ${THREADS} workers (threads, one file)  median ${fmt(med((r) => r.many))} → ${many.rate.toFixed(2)}× the limit (CPU-cost ratio ${many.cpu.toFixed(2)}×)`,
  );
  console.log(
    `ordering: 1 worker with 1 in 4 sends keyed             median ${fmt(med((r) => r.mixed))} → ${mixed.toFixed(2)}× the unordered run of its round`,
  );

  if (process.env.DATABASE_URL) await postgresRows();
  else console.log('PostgreSQL runs skipped: DATABASE_URL is not set');
  await receiver.stop();

  const verdict = (ratio: number, target: number) => loadVerdict(ratio >= target, machine);
  console.log(
    `\ntarget: SQLite engine ≥ 0.5× the bare loop (which itself uses two threads: client + receiver), medians of paired rounds\n` +
      `  1 worker (one thread + receiver):             ${verdict(one.rate, 0.5)} (${one.rate.toFixed(2)}× throughput, ${one.cpu.toFixed(2)}× by CPU cost)\n` +
      `  ${THREADS} workers (${THREADS} threads + receiver, one file):  ${verdict(many.rate, 0.5)} (${many.rate.toFixed(2)}× throughput, ${many.cpu.toFixed(2)}× by CPU cost)\n` +
      `target: ordering keys keep the outbox's throughput (keyed beside unordered ≥ 0.9× all unordered): ${verdict(mixed, 0.9)} (${mixed.toFixed(2)}×)\n` +
      `load average ${loadAverage()}; the 1,000,000-delivery history rows follow (bench/growth.bench.ts, BENCH_ONLY=outbox)`,
  );
}

if (isMainThread) await main();
else serveThread();
