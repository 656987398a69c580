/**
 * Cost as data grows, each row a ratio to the empty case measured in the same run (rounds
 * interleaved, the order alternating, the median of the paired per-round ratios reported):
 *
 * 1. Outbox delivery throughput (worker → local HTTP receiver in a thread), SQLite and PostgreSQL:
 *    an outbox holding BENCH_HISTORY (1,000,000) historical deliveries (messages, deliveries and
 *    attempts, written with bulk SQL) against an empty one. Target ≥ 0.9×.
 * 2. Dedupe claim + complete of fresh keys, SQLite / PostgreSQL / Redis: a store holding 1,000,000
 *    keys against an empty one, 32 requests in flight (SQLite also one at a time). Target ≥ 0.9×.
 * 3. p99 latency of a dedupe claim + complete (one at a time, SQLite, same event loop) while
 *    `store.cleanup` deletes 1,000,000 expired keys and while `pruneSqliteOutbox` deletes 1,000,000
 *    finished deliveries, against no prune. Target: p99 during a prune within a few ms. On Linux it
 *    also prints the p99 less the main thread's run-queue wait (bench/lib/run-queue.ts): on a shared
 *    machine that is the part the prune is answerable for.
 *
 *   npm run bench:growth      (BENCH_HISTORY=1000000 BENCH_ROUNDS=5 BENCH_MESSAGES=3000 BENCH_CLAIMS=20000
 *                              BENCH_ONLY=outbox|claims|prune; DATABASE_URL and REDIS_URL for those rows)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Outbox } from '../runtime/deliver/outbox.js';
import { postgresOutbox } from '../runtime/deliver/postgres-outbox.js';
import { createSender } from '../runtime/deliver/sender.js';
import { sqliteOutbox } from '../runtime/deliver/sqlite-outbox.js';
import { pruneSqliteOutbox } from '../runtime/deliver/sqlite-prune.js';
import { createWorker } from '../runtime/deliver/worker.js';
import { createEndpointManager } from '../runtime/manage/endpoints.js';
import { postgresStore } from '../runtime/stores/postgres.js';
import { redisStore } from '../runtime/stores/redis.js';
import { sqliteStore } from '../runtime/stores/sqlite.js';
import type { IdempotencyStore } from '../runtime/stores/types.js';
import { startReceiver } from './lib/bare-receiver.js';
import { loadAverage, median, startLoad, verdict } from './lib/load.js';
import { contract, LOCAL } from './lib/order-contract.js';
import { runQueueWaitMs } from './lib/run-queue.js';

const HISTORY = Number(process.env.BENCH_HISTORY ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 3000);
const PG_MESSAGES = Number(process.env.BENCH_PG_MESSAGES ?? 1500);
const CLAIMS = Number(process.env.BENCH_CLAIMS ?? 20_000);
const ONLY = process.env.BENCH_ONLY;
const DATABASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
const DAY = 86_400_000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-growth-'));
const machine = startLoad();
const summary: string[] = [];

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Median of the paired ratios, with their spread. */
function report(label: string, ratios: number[], detail: string, target = 0.9): void {
  const m = median(ratios);
  const spread = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
  const line = `${label.padEnd(58)} ${m.toFixed(2)}× (rounds ${spread}) ${detail} — ${verdict(m >= target, machine)}`;
  console.log(line);
  summary.push(line);
}

// ---------------------------------------------------------------------------------------------
// 1. Outbox delivery throughput with and without history

/** Finished history written in bulk: messages, one succeeded delivery each, one attempt each. */
function fillSqliteHistory(db: Database.Database, endpointId: string, n: number): void {
  const start = Date.now() - 60 * DAY;
  db.exec(`
    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${n})
    INSERT INTO webhook_messages (id, event_type, body, headers, created_at)
      SELECT 'hist_' || i, 'order.paid', printf('{"orderId":"ord_%d","amount":4200,"currency":"EUR","note":"%.200c"}', i, 'x'),
        '{}', ${start} + i * 3 FROM c;
    INSERT INTO webhook_deliveries (id, message_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at, finished_at)
      SELECT 'dlv_' || printf('%012x', created_at) || lower(hex(randomblob(6))), id, '${endpointId}', 'succeeded', 1,
        created_at, created_at, created_at + 40, created_at + 40 FROM webhook_messages WHERE id LIKE 'hist_%';
    INSERT INTO webhook_attempts (delivery_id, message_id, endpoint_id, attempt, started_at, duration_ms, status_code, outcome)
      SELECT id, message_id, endpoint_id, 1, created_at, 12.5, 200, 'succeeded' FROM webhook_deliveries ORDER BY id;`);
  db.pragma('wal_checkpoint(TRUNCATE)');
}

async function fillPostgresHistory(
  pool: pg.Pool,
  schema: string,
  endpointId: string,
  n: number,
): Promise<void> {
  const t = (name: string) => `"${schema}"."webhook_${name}"`;
  const start = Date.now() - 60 * DAY;
  // In slices, so no single statement holds a transaction open for minutes.
  for (let from = 1; from <= n; from += 200_000) {
    const to = Math.min(n, from + 199_999);
    await pool.query(`
      WITH m AS (
        INSERT INTO ${t('messages')} (id, event_type, body, created_at)
        SELECT 'hist_' || i, 'order.paid', '{"orderId":"ord_' || i || '","amount":4200,"currency":"EUR","note":"' || repeat('x', 200) || '"}',
          to_timestamp((${start} + i * 3) / 1000.0) FROM generate_series(${from}, ${to}) i
        RETURNING id, created_at),
      d AS (
        INSERT INTO ${t('deliveries')} (id, message_id, endpoint_id, status, attempts, next_attempt_at, created_at, updated_at, finished_at)
        SELECT 'dlv_' || lpad(to_hex((extract(epoch FROM created_at) * 1000)::bigint), 12, '0') || substr(md5(id), 1, 12),
          id, '${endpointId}', 'succeeded', 1, created_at, created_at, created_at, created_at FROM m
        RETURNING id, message_id, created_at)
      INSERT INTO ${t('attempts')} (delivery_id, message_id, endpoint_id, attempt, started_at, duration_ms, status_code, outcome)
      SELECT id, message_id, '${endpointId}', 1, created_at, 12.5, 200, 'succeeded' FROM d`);
  }
  await pool.query(`VACUUM ANALYZE ${t('messages')}, ${t('deliveries')}, ${t('attempts')}`);
}

interface OutboxCase {
  readonly outbox: Outbox;
  readonly close: () => Promise<void>;
}

/** Enqueues `n` messages, then drains them with one worker; deliveries/s and CPU µs per delivery. */
async function drain(outbox: Outbox, n: number, round: number): Promise<{ rate: number; cpu: number }> {
  const sender = createSender(contract, { outbox });
  for (let i = 0; i < n; i++) {
    await sender.send('order.paid', {
      orderId: `r${round}_${i}`,
      amount: 4200,
      currency: 'EUR',
      note: 'x'.repeat(200),
    });
  }
  const worker = createWorker({
    outbox,
    contract,
    urlPolicy: LOCAL,
    concurrency: 32,
    pollIntervalMs: 5,
    disableAfterFailures: 0,
  });
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  worker.start();
  while ((await outbox.nextDueAt()) !== undefined) await new Promise((r) => setTimeout(r, 2));
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await worker.stop();
  return { rate: n / seconds, cpu: (cpu.user + cpu.system) / n };
}

async function outboxRow(
  label: string,
  empty: OutboxCase,
  full: OutboxCase,
  messages: number,
): Promise<void> {
  const rates: number[] = [];
  const cpus: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const first = round % 2 === 1 ? empty : full;
    const second = first === empty ? full : empty;
    const a = await drain(first.outbox, messages, round);
    const b = await drain(second.outbox, messages, round);
    const [e, f] = first === empty ? [a, b] : [b, a];
    rates.push(f.rate / e.rate);
    cpus.push(e.cpu / f.cpu);
    console.log(
      `  round ${round}: empty ${fmt(e.rate)}/s (${Math.round(e.cpu)} µs CPU), ${fmt(HISTORY)} history ${fmt(f.rate)}/s (${Math.round(f.cpu)} µs CPU); ${loadAverage()}`,
    );
  }
  report(label, rates, `deliveries/s; CPU per delivery ${median(cpus).toFixed(2)}×`);
  await empty.close();
  await full.close();
}

async function outboxRows(receiverUrl: string): Promise<void> {
  const open = async (file: string, history: number): Promise<OutboxCase> => {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const outbox = sqliteOutbox(db);
    const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
    const endpoint = await manager.register({ url: `${receiverUrl}/hook`, events: ['order.paid'] });
    if (history > 0) {
      const t0 = Date.now();
      fillSqliteHistory(db, endpoint.endpoint.id, history);
      console.log(
        `  SQLite history: ${fmt(history)} deliveries in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${(fs.statSync(file).size / 1e9).toFixed(2)} GB`,
      );
    }
    return {
      outbox,
      close: async () => {
        db.close();
      },
    };
  };
  console.log(`\nSQLite outbox, one worker (32 in flight), ${MESSAGES} messages per round:`);
  const emptySqlite = await open(path.join(dir, 'outbox-empty.db'), 0);
  const fullSqlite = await open(path.join(dir, 'outbox-full.db'), HISTORY);
  await drain(emptySqlite.outbox, 1000, 0); // warm-up
  await outboxRow(
    `SQLite outbox delivery, ${fmt(HISTORY)} history vs none`,
    emptySqlite,
    fullSqlite,
    MESSAGES,
  );

  if (DATABASE_URL === undefined) {
    console.log('\nPostgreSQL outbox: DATABASE_URL not set, skipped');
    return;
  }
  console.log(`\nPostgreSQL outbox, one worker (32 in flight), ${PG_MESSAGES} messages per round:`);
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
  const openPg = async (schema: string, history: number): Promise<OutboxCase> => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    const outbox = postgresOutbox(pool, { schema });
    const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
    const endpoint = await manager.register({ url: `${receiverUrl}/hook`, events: ['order.paid'] });
    if (history > 0) {
      const t0 = Date.now();
      await fillPostgresHistory(pool, schema, endpoint.endpoint.id, history);
      const { rows } = await pool.query<{ size: string }>(
        `SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) AS size FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
        [schema],
      );
      console.log(
        `  PostgreSQL history: ${fmt(history)} deliveries in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${rows[0]?.size}`,
      );
    }
    return { outbox, close: () => pool.query(`DROP SCHEMA "${schema}" CASCADE`).then(() => {}) };
  };
  const emptyPg = await openPg(`growth_empty_${process.pid}`, 0);
  const fullPg = await openPg(`growth_full_${process.pid}`, HISTORY);
  await drain(emptyPg.outbox, 500, 0);
  await outboxRow(
    `PostgreSQL outbox delivery, ${fmt(HISTORY)} history vs none`,
    emptyPg,
    fullPg,
    PG_MESSAGES,
  );
  await pool.end();
}

// ---------------------------------------------------------------------------------------------
// 2. Dedupe claims with and without 1,000,000 keys

let keySeq = 0;
/** Event ids as senders make them (msg_ + random), fresh each call. */
const freshKey = () => `msg_${(keySeq++).toString(36)}${Math.random().toString(36).slice(2, 12)}`;

/**
 * claim + complete of `n` fresh keys with `inFlight` requests at once: ops/s of wall time, or of this
 * process's CPU time (`cpu`: the SQLite store is all in-process, and CPU time is what a shared,
 * loaded machine cannot blur).
 */
async function claims(
  store: IdempotencyStore<unknown>,
  n: number,
  inFlight: number,
  cpu = false,
): Promise<number> {
  const now = Date.now();
  let left = n;
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  const lane = async () => {
    while (left-- > 0) {
      const key = freshKey();
      if ((await store.claim(key, { leaseMs: 30_000, now, token: 'bench' })) !== 'claimed')
        throw new Error('not claimed');
      await store.complete(key, { ttlMs: 7 * DAY, now });
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  if (cpu) {
    const used = process.cpuUsage(cpu0);
    return n / ((used.user + used.system) / 1e6);
  }
  return n / ((performance.now() - start) / 1000);
}

/** Slices per round: the round's claims alternate between the two stores in slices this many times. */
const SLICES = Number(process.env.BENCH_SLICES ?? 10);

/**
 * One round is SLICES pairs of slices, empty and full taking turns (the order alternating), and its
 * ratio is total time against total time: both stores see the same seconds of a shared machine, so
 * a burst of other work lands on both instead of on whichever ran at that moment.
 */
async function claimRow(
  label: string,
  empty: IdempotencyStore<unknown>,
  full: IdempotencyStore<unknown>,
  inFlight: number,
  n: number,
  cpu = false,
): Promise<void> {
  await claims(empty, Math.min(n, 2000), inFlight);
  await claims(full, Math.min(n, 2000), inFlight);
  const slice = Math.max(inFlight, Math.round(n / SLICES));
  const ratios: number[] = [];
  const rates: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const seconds = new Map<IdempotencyStore<unknown>, number>([
      [empty, 0],
      [full, 0],
    ]);
    for (let i = 0; i < SLICES; i++) {
      const order = (round + i) % 2 === 1 ? [empty, full] : [full, empty];
      for (const store of order) {
        seconds.set(
          store,
          (seconds.get(store) as number) + slice / (await claims(store, slice, inFlight, cpu)),
        );
      }
    }
    const e = (slice * SLICES) / (seconds.get(empty) as number);
    const f = (slice * SLICES) / (seconds.get(full) as number);
    ratios.push(f / e);
    rates.push(e);
    console.log(`  round ${round}: empty ${fmt(e)}/s, ${fmt(HISTORY)} keys ${fmt(f)}/s; ${loadAverage()}`);
  }
  report(
    label,
    ratios,
    `claim+complete/s of ${cpu ? 'CPU' : 'wall'} time, ${SLICES} alternating slices a round (empty ${fmt(median(rates))}/s)`,
  );
}

async function claimRows(): Promise<void> {
  console.log('\nSQLite dedupe store:');
  const emptyFile = path.join(dir, 'dedupe-empty.db');
  const fullFile = path.join(dir, 'dedupe-full.db');
  const emptySqlite = sqliteStore(emptyFile);
  const fullSqlite = sqliteStore(fullFile);
  const db = await fullSqlite.database();
  await emptySqlite.database();
  db.exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${HISTORY})
    INSERT INTO webhook_idempotency (key, state, token, expires_at)
    SELECT 'msg_' || lower(hex(randomblob(12))), 'done', NULL, ${Date.now() + 7 * DAY} + i FROM c`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  await claimRow(
    `SQLite claim, ${fmt(HISTORY)} keys vs none, 32 in flight`,
    emptySqlite,
    fullSqlite,
    32,
    CLAIMS,
    true,
  );
  await claimRow(
    `SQLite claim, ${fmt(HISTORY)} keys vs none, one at a time`,
    emptySqlite,
    fullSqlite,
    1,
    CLAIMS / 2,
    true,
  );
  await emptySqlite.close();
  await fullSqlite.close();

  if (DATABASE_URL !== undefined) {
    console.log('\nPostgreSQL dedupe store:');
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 32 });
    const tables = [`growth_keys_empty_${process.pid}`, `growth_keys_full_${process.pid}`];
    const emptyPg = postgresStore(pool, { table: tables[0] as string });
    const fullPg = postgresStore(pool, { table: tables[1] as string });
    await emptyPg.migrate();
    await fullPg.migrate();
    await pool.query(`INSERT INTO ${tables[1]} (key, state, token, expires_at)
      SELECT 'msg_' || md5(i::text), 'done', NULL, ${Date.now() + 7 * DAY} + i FROM generate_series(1, ${HISTORY}) i`);
    await pool.query(`VACUUM ANALYZE ${tables[1]}`);
    await claimRow(
      `PostgreSQL claim, ${fmt(HISTORY)} keys vs none, 32 in flight`,
      emptyPg,
      fullPg,
      32,
      CLAIMS / 4,
    );
    for (const table of tables) await pool.query(`DROP TABLE ${table}, ${table}_queue`);
    await pool.end();
  } else console.log('\nPostgreSQL dedupe store: DATABASE_URL not set, skipped');

  if (REDIS_URL !== undefined) {
    console.log('\nRedis dedupe store (logical databases 12 and 13):');
    const emptyClient = new Redis(REDIS_URL, { db: 12 });
    const fullClient = new Redis(REDIS_URL, { db: 13 });
    const prefix = `growth:${process.pid}:`;
    const expiry = String(7 * DAY);
    for (let from = 0; from < HISTORY; from += 10_000) {
      const pipeline = fullClient.pipeline();
      for (let i = from; i < Math.min(HISTORY, from + 10_000); i++) {
        pipeline.set(`${prefix}hist_${i}`, `d:${Date.now() + 7 * DAY}`, 'PX', expiry);
      }
      await pipeline.exec();
    }
    await claimRow(
      `Redis claim, ${fmt(HISTORY)} keys vs none, 32 in flight`,
      redisStore(emptyClient, { prefix }),
      redisStore(fullClient, { prefix }),
      32,
      CLAIMS / 2,
    );
    for (const client of [emptyClient, fullClient]) {
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 10_000);
        if (keys.length > 0) await client.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
      client.disconnect();
    }
  } else console.log('\nRedis dedupe store: REDIS_URL not set, skipped');
}

// ---------------------------------------------------------------------------------------------
// 3. p99 claim latency during a prune

/**
 * Event-loop delay (p99, ms), this process's CPU ms, and the latencies less the main thread's
 * run-queue wait during each (empty where that cannot be read), over the last `probe`.
 */
const lastProbe = { loopP99: 0, cpuMs: 0, own: [] as number[] };

/** Claim + complete one at a time until `until` resolves; the latencies in ms. */
async function probe(store: IdempotencyStore<unknown>, until: Promise<unknown>): Promise<number[]> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const cpu0 = process.cpuUsage();
  let done = false;
  void until.then(() => {
    done = true;
  });
  const latencies: number[] = [];
  const own: number[] = [];
  const now = Date.now();
  while (!done) {
    const key = freshKey();
    const wait0 = runQueueWaitMs();
    const t0 = performance.now();
    await store.claim(key, { leaseMs: 30_000, now, token: 'probe' });
    await store.complete(key, { ttlMs: DAY, now });
    const latency = performance.now() - t0;
    latencies.push(latency);
    const wait1 = runQueueWaitMs();
    if (wait0 !== undefined && wait1 !== undefined) own.push(latency - (wait1 - wait0));
    // About a request every millisecond, not a tight loop that starves the prune.
    await new Promise((r) => setTimeout(r, 1));
  }
  loop.disable();
  const cpu = process.cpuUsage(cpu0);
  lastProbe.loopP99 = loop.percentile(99) / 1e6;
  lastProbe.cpuMs = (cpu.user + cpu.system) / 1000;
  lastProbe.own = own;
  return latencies;
}

const p99 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
};

/** `; less run-queue waits p99 X ms during vs Y ms without`, when the run-queue wait could be read. */
const ownP99 = (during: number[], quiet: number[]) =>
  during.length === 0 || quiet.length === 0
    ? ''
    : `; less the main thread's waits for a CPU: p99 ${p99(during).toFixed(2)} ms during vs ${p99(quiet).toFixed(2)} ms without (max ${Math.max(...during).toFixed(1)} ms)`;

/** Largest size the file reaches while `until` runs, sampled every 50 ms. */
async function peakSize(file: string, until: Promise<unknown>): Promise<number> {
  let peak = 0;
  const sample = () => {
    try {
      peak = Math.max(peak, fs.statSync(file).size);
    } catch {
      // Not there (yet).
    }
  };
  const timer = setInterval(sample, 50);
  await until;
  clearInterval(timer);
  sample();
  return peak;
}

async function pruneRows(): Promise<void> {
  console.log(
    `\np99 of a dedupe claim + complete (SQLite, same event loop) during a prune of ${fmt(HISTORY)} rows:`,
  );
  const probeStore = sqliteStore(path.join(dir, 'probe.db'));
  await claims(probeStore, 2000, 1);
  const idle = (ms: number) => new Promise((r) => setTimeout(r, ms));

  // Expired keys in the probe's own store: cleanup shares its connection and its write queue.
  const db = await probeStore.database();
  db.exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${HISTORY})
    INSERT INTO webhook_idempotency (key, state, token, expires_at)
    SELECT 'old_' || lower(hex(randomblob(12))), 'done', NULL, 1000 + i FROM c`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const before = fs.statSync(path.join(dir, 'probe.db')).size;
  const quiet = await probe(probeStore, idle(3000));
  const quietOwn = lastProbe.own;
  const t0 = performance.now();
  let removed = 0;
  const cleanup = probeStore.cleanup(Date.now()).then((n) => {
    removed = n;
  });
  const [during, walPeak] = await Promise.all([
    probe(probeStore, cleanup),
    peakSize(path.join(dir, 'probe.db-wal'), cleanup),
  ]);
  const seconds = (performance.now() - t0) / 1000;
  const cleanupOwn = lastProbe.own;
  const cleanupLoop = lastProbe.loopP99;
  const cleanupCpuPerBatch = lastProbe.cpuMs / Math.ceil(HISTORY / 1000);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const after = fs.statSync(path.join(dir, 'probe.db')).size;
  const line1 =
    `store.cleanup, ${fmt(removed)} expired keys in ${seconds.toFixed(1)} s (file ${(before / 1e6).toFixed(0)} → ${(after / 1e6).toFixed(0)} MB): ` +
    `p99 ${p99(during).toFixed(2)} ms during vs ${p99(quiet).toFixed(2)} ms without (max ${Math.max(...during).toFixed(1)} ms, ${during.length} claims)${ownP99(cleanupOwn, quietOwn)}; event-loop delay p99 ${cleanupLoop.toFixed(1)} ms; ` +
    `WAL at most ${(walPeak / 1e6).toFixed(0)} MB; ≈ ${cleanupCpuPerBatch.toFixed(2)} ms CPU per 1000 keys (probe included)`;
  console.log(line1);
  summary.push(line1);

  // An outbox on another file, pruned on the same event loop.
  const outboxFile = path.join(dir, 'prune-outbox.db');
  const odb = new Database(outboxFile);
  odb.pragma('auto_vacuum = INCREMENTAL');
  odb.pragma('journal_mode = WAL');
  const outbox = sqliteOutbox(odb);
  const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
  const endpoint = await manager.register({ url: 'http://127.0.0.1:9/hook', events: ['order.paid'] });
  fillSqliteHistory(odb, endpoint.endpoint.id, HISTORY);
  const outboxBefore = fs.statSync(outboxFile).size;
  const quiet2 = await probe(probeStore, idle(3000));
  const quietOwn2 = lastProbe.own;
  const t1 = performance.now();
  let pruned = { messages: 0, deliveries: 0, attempts: 0, batches: 0, vacuumedPages: 0 };
  const prune = pruneSqliteOutbox(odb, { keepAttemptsMs: 7 * DAY, keepMessagesMs: 30 * DAY }).then((r) => {
    pruned = r;
  });
  const [during2, walPeak2] = await Promise.all([
    probe(probeStore, prune),
    peakSize(`${outboxFile}-wal`, prune),
  ]);
  const seconds2 = (performance.now() - t1) / 1000;
  const pruneOwn = lastProbe.own;
  const pruneLoop = lastProbe.loopP99;
  const pruneCpuPerBatch = lastProbe.cpuMs / Math.max(1, pruned.batches);
  odb.pragma('wal_checkpoint(TRUNCATE)');
  const line2 =
    `pruneSqliteOutbox, ${fmt(pruned.deliveries)} deliveries in ${pruned.batches} batches, ${seconds2.toFixed(1)} s ` +
    `(file ${(outboxBefore / 1e9).toFixed(2)} → ${(fs.statSync(outboxFile).size / 1e9).toFixed(2)} GB): ` +
    `p99 ${p99(during2).toFixed(2)} ms during vs ${p99(quiet2).toFixed(2)} ms without (max ${Math.max(...during2).toFixed(1)} ms, ${during2.length} claims)${ownP99(pruneOwn, quietOwn2)}; event-loop delay p99 ${pruneLoop.toFixed(1)} ms; ` +
    `WAL at most ${(walPeak2 / 1e6).toFixed(0)} MB; ≈ ${pruneCpuPerBatch.toFixed(2)} ms CPU per batch (probe included)`;
  console.log(line2);
  summary.push(line2);
  odb.close();
  await probeStore.close();
}

async function main(): Promise<void> {
  console.log(`node ${process.version}, history ${fmt(HISTORY)}, ${ROUNDS} rounds`);
  try {
    if (ONLY === undefined || ONLY === 'outbox') {
      const receiver = await startReceiver();
      await outboxRows(receiver.url);
      await receiver.stop();
    }
    if (ONLY === undefined || ONLY === 'claims') await claimRows();
    if (ONLY === undefined || ONLY === 'prune') await pruneRows();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nSummary (${loadAverage()} after the run):`);
  for (const line of summary) console.log(`  ${line}`);
}

await main();
