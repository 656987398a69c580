/**
 * A receiver in its own process, for restart and crash tests. Configured by environment:
 * STORE=sqlite|postgres, DB (SQLite file or PostgreSQL URL), TABLE (idempotency table), BIZ (business
 * table), MODE=inline|ack-fast, TX=1 (transactional), WORKER=1 (start the ack-fast worker),
 * HANG=before|after (the handler announces HANDLER_STARTED and never finishes, before/after its write),
 * LEASE_MS. Prints `LISTENING <port>` when ready.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ackFastQueue } from '../../runtime/receive/ack-fast-mode.js';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import { postgresStore } from '../../runtime/stores/postgres.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';
import { petstore, SECRET } from './fixtures.js';

const env = (name: string): string | undefined => process.env[name];
const biz = env('BIZ') ?? 'adoptions';
const hang = env('HANG');
const leaseMs = Number(env('LEASE_MS') ?? 30_000);
const mode = env('MODE') === 'ack-fast' ? 'ack-fast' : 'inline';
const ackFastOf = (m: string) =>
  m === 'ack-fast' ? { ackFast: ackFastQueue({ worker: { pollMs: 50 } }) } : {};
const transactional = env('TX') === '1';

const forever = (): Promise<never> => {
  process.stdout.write('HANDLER_STARTED\n');
  return new Promise<never>(() => {});
};

async function main(): Promise<void> {
  let handler: (event: { id: string; data: { petId: string }; tx: unknown }) => Promise<void>;
  let receiver: ReturnType<typeof createReceiver>;
  if (env('STORE') === 'postgres') {
    const pool = new pg.Pool({ connectionString: env('DB'), max: 4 });
    await pool.query(`CREATE TABLE IF NOT EXISTS ${biz} (pet text NOT NULL, event text NOT NULL)`);
    handler = async (event) => {
      if (hang === 'before') await forever();
      const client = (transactional ? event.tx : pool) as pg.Pool;
      await client.query(`INSERT INTO ${biz} (pet, event) VALUES ($1, $2)`, [event.data.petId, event.id]);
      if (hang === 'after') await forever();
    };
    const store = postgresStore(pool, { table: env('TABLE') ?? 'webhook_idempotency' });
    receiver = createReceiver(petstore, {
      secret: SECRET,
      store,
      transactional,
      leaseMs,
      ...ackFastOf(mode),
      handlers: { 'pet.adopted': (e) => handler(e) },
    });
  } else {
    const db = new Database(env('DB') ?? ':memory:');
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE IF NOT EXISTS ${biz} (pet TEXT NOT NULL, event TEXT NOT NULL)`);
    handler = async (event) => {
      if (hang === 'before') await forever();
      db.prepare(`INSERT INTO ${biz} (pet, event) VALUES (?, ?)`).run(event.data.petId, event.id);
      if (hang === 'after') await forever();
    };
    const store = sqliteStore(db, { table: env('TABLE') ?? 'webhook_idempotency' });
    receiver = createReceiver(petstore, {
      secret: SECRET,
      store,
      transactional,
      leaseMs,
      ...ackFastOf(mode),
      handlers: { 'pet.adopted': (e) => handler(e) },
    });
  }
  if (mode === 'ack-fast' && env('WORKER') === '1') receiver.startWorker();
  const server = http.createServer(receiver.node());
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`LISTENING ${(server.address() as AddressInfo).port}\n`);
  });
}

void main();
