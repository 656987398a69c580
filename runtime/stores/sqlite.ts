/**
 * SQLite idempotency store and ack-fast queue on better-sqlite3 (the embedded default).
 *
 * Pass your own `Database` or a file path; with a path, better-sqlite3 is loaded lazily and the file
 * is opened in WAL mode (readers never block the writer; several processes may share the file) with
 * a 2 MB page cache (see SQLITE_CACHE_KIB).
 * better-sqlite3 is synchronous, so each operation is one atomic statement (or a short transaction)
 * that no other request of this process can interleave with.
 *
 * Transactional mode opens `BEGIN IMMEDIATE` (the write lock, so concurrent processes cannot insert
 * the same key) and runs the handler with the connection as `tx`. A synchronous handler is the
 * intended shape: better-sqlite3 is sync and the write lock is held only for the handler's duration.
 * An async handler also works; while it awaits, the store's other operations on this connection wait
 * behind an in-process lock so they cannot leak into the open transaction — but code elsewhere that
 * uses the same connection would, so keep the connection to the webhook path or use sync handlers.
 */
import type { BetterSqlite3 } from '../drivers/better-sqlite3.js';
import { WebhookError } from '../errors.js';
import { checkKnownOptions, type KnownKeys } from '../known-options.js';
import { batchSizeOf, inBatches } from './batches.js';
import { sqlIdentifier } from './identifier.js';
import { storeKey } from './key.js';
import { Mutex } from './mutex.js';
import { offloadCheckpoints } from './sqlite-checkpoint.js';
import { budgetedSize } from './time-budget.js';
import type {
  ClaimOptions,
  ClaimResult,
  CleanupOptions,
  CompleteOptions,
  DequeueOptions,
  EventQueue,
  QueuedEvent,
  TransactionalStore,
  TransactionOptions,
  TransactionResult,
} from './types.js';
import { vacuumSizer, vacuumStep } from './vacuum-step.js';

type Database = BetterSqlite3.Database;

/**
 * Page cache of a connection the store opens itself: 2 MB (SQLite's own default; better-sqlite3 builds
 * with 16 MB). A commit whose inserts split a page in the middle of the B-tree walks every page in the
 * cache (balance_nonroot parks a page at the pending-byte page number, beyond the file's end, and the
 * commit's cache truncate then scans the whole cache for pages past the end). With many keys that is
 * nearly every batched commit, and a cache full of a large store's pages made it cost more than the
 * reads a larger cache saves: random keys miss it anyway, and the OS page cache serves those reads.
 */
const SQLITE_CACHE_KIB = 2000;

/** The fewest keys a cleanup batch shrinks to. */
const MIN_CLEANUP_BATCH = 50;

export interface SqliteStoreOptions {
  /** Idempotency table; the queue table is `<table>_queue`. Default `webhook_idempotency`. */
  readonly table?: string;
  /**
   * `synchronous` pragma when the store opens the file itself. `normal` (default) is durable across
   * process crashes in WAL mode; `full` also survives power loss at the cost of an fsync per commit.
   */
  readonly synchronous?: 'normal' | 'full';
}

const SQLITE_STORE_KEYS = { table: true, synchronous: true } as const satisfies KnownKeys<SqliteStoreOptions>;

/** `D`: the driver's own `Database` type when you pass one, so `event.tx` keeps its full API. */
export interface SqliteStore<D extends Database = Database> extends TransactionalStore<D> {
  close(): Promise<void>;
  readonly queue: EventQueue;
  /** The connection in use (after the first operation when opened from a path). */
  database(): Promise<D>;
}

// The per-event statements (claim, complete) bind positional parameters: binding a named-parameter
// object costs measurably more per call at webhook rates.
interface Statements {
  /** (key, token, expires, now) */
  claim: BetterSqlite3.Statement<[string, string, number, number]>;
  markDone: BetterSqlite3.Statement<[{ key: string; expires: number; now: number }]>;
  state: BetterSqlite3.Statement<[string], { state: string; expires_at: number }>;
  /** (expires, key): the usual case, the claimed row exists. */
  completeRow: BetterSqlite3.Statement<[number, string]>;
  /** (key, expires): no row (e.g. cleaned up after its lease expired): insert it done. */
  complete: BetterSqlite3.Statement<[string, number]>;
  release: BetterSqlite3.Statement<[{ key: string; token: string }]>;
  extend: BetterSqlite3.Statement<[{ key: string; token: string; expires: number; now: number }]>;
  /** (cursor, offset): the key `offset` rows past the cursor, the end of one cleanup batch. */
  cleanupEdge: BetterSqlite3.Statement<[string, number], { key: string }>;
  /** (cursor, last, now) */
  cleanupRange: BetterSqlite3.Statement<[string, string, number]>;
  /** (cursor, now): the last batch. */
  cleanupTail: BetterSqlite3.Statement<[string, number]>;
  enqueue: BetterSqlite3.Statement<[{ key: string; payload: string; now: number }]>;
  dequeue: BetterSqlite3.Statement<
    [{ now: number; until: number; limit: number }],
    { seq: number; key: string; payload: string; attempts: number }
  >;
  extendRow: BetterSqlite3.Statement<[{ seq: number; until: number; attempts: number }]>;
  ack: BetterSqlite3.Statement<[number]>;
  retry: BetterSqlite3.Statement<[{ seq: number; at: number; error: string; refund: number }]>;
  fail: BetterSqlite3.Statement<[{ seq: number; error: string }]>;
  counts: BetterSqlite3.Statement<[], { pending: number | null; failed: number | null }>;
}

/** DDL of the store's tables (idempotent). */
export function sqliteSchema(table = 'webhook_idempotency'): string {
  const t = sqlIdentifier(table, 'table');
  return `
CREATE TABLE IF NOT EXISTS ${t} (
  key TEXT PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('inflight', 'done')),
  token TEXT,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
-- No index on expires_at: every claim and completion rewrote it (about half of their cost), and
-- cleanup walks the primary key in batches instead. Files made with it drop it on open.
DROP INDEX IF EXISTS ${t}_expires_at;
CREATE TABLE IF NOT EXISTS ${t}_queue (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  key TEXT NOT NULL UNIQUE,
  payload TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  available_at INTEGER NOT NULL,
  locked_until INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS ${t}_queue_due ON ${t}_queue (status, available_at);
`;
}

function prepare(db: Database, t: string): Statements {
  const q = `${t}_queue`;
  return {
    // One statement: insert, or take over a row whose lease or TTL has expired.
    claim: db.prepare(
      `INSERT INTO ${t} (key, state, token, expires_at) VALUES (?, 'inflight', ?, ?)
       ON CONFLICT (key) DO UPDATE SET state = 'inflight', token = excluded.token, expires_at = excluded.expires_at
       WHERE ${t}.expires_at <= ?`,
    ),
    markDone: db.prepare(
      `INSERT INTO ${t} (key, state, token, expires_at) VALUES (@key, 'done', NULL, @expires)
       ON CONFLICT (key) DO UPDATE SET state = 'done', token = NULL, expires_at = excluded.expires_at
       WHERE ${t}.expires_at <= @now`,
    ),
    state: db.prepare(`SELECT state, expires_at FROM ${t} WHERE key = ?`),
    completeRow: db.prepare(`UPDATE ${t} SET state = 'done', token = NULL, expires_at = ? WHERE key = ?`),
    complete: db.prepare(
      `INSERT INTO ${t} (key, state, token, expires_at) VALUES (?, 'done', NULL, ?)
       ON CONFLICT (key) DO UPDATE SET state = 'done', token = NULL, expires_at = excluded.expires_at`,
    ),
    release: db.prepare(`DELETE FROM ${t} WHERE key = @key AND state = 'inflight' AND token = @token`),
    extend: db.prepare(
      `UPDATE ${t} SET expires_at = @expires
       WHERE key = @key AND state = 'inflight' AND token = @token AND expires_at > @now`,
    ),
    cleanupEdge: db.prepare(`SELECT key FROM ${t} WHERE key > ? ORDER BY key LIMIT 1 OFFSET ?`),
    cleanupRange: db.prepare(`DELETE FROM ${t} WHERE key > ? AND key <= ? AND expires_at <= ?`),
    cleanupTail: db.prepare(`DELETE FROM ${t} WHERE key > ? AND expires_at <= ?`),
    // A dead-lettered key delivered again (e.g. a manual redelivery) is queued afresh.
    enqueue: db.prepare(
      `INSERT INTO ${q} (key, payload, available_at, created_at) VALUES (@key, @payload, @now, @now)
       ON CONFLICT (key) DO UPDATE SET status = 'pending', payload = excluded.payload, attempts = 0,
         available_at = excluded.available_at, locked_until = 0, last_error = NULL
       WHERE ${q}.status = 'failed'`,
    ),
    dequeue: db.prepare(
      `UPDATE ${q} SET locked_until = @until, attempts = attempts + 1
       WHERE seq IN (SELECT seq FROM ${q} WHERE status = 'pending' AND available_at <= @now AND locked_until <= @now
                     ORDER BY seq LIMIT @limit)
       RETURNING seq, key, payload, attempts`,
    ),
    // Fenced on the take: a row settled (locked_until 0) or taken again (attempts moved on) is not renewed.
    extendRow: db.prepare(
      `UPDATE ${q} SET locked_until = @until
       WHERE seq = @seq AND status = 'pending' AND attempts = @attempts AND locked_until > 0`,
    ),
    ack: db.prepare(`DELETE FROM ${q} WHERE seq = ?`),
    retry: db.prepare(
      `UPDATE ${q} SET available_at = @at, locked_until = 0, last_error = @error,
         attempts = max(attempts - @refund, 0) WHERE seq = @seq`,
    ),
    fail: db.prepare(
      `UPDATE ${q} SET status = 'failed', locked_until = 0, last_error = @error WHERE seq = @seq`,
    ),
    counts: db.prepare(
      `SELECT SUM(status = 'pending') AS pending, SUM(status = 'failed') AS failed FROM ${q}`,
    ),
  };
}

async function openDatabase(path: string, synchronous: 'normal' | 'full'): Promise<Database> {
  // A variable specifier keeps bundlers for Web runtimes from trying to resolve the native driver.
  const specifier = 'better-sqlite3';
  let mod: { default: typeof BetterSqlite3 };
  try {
    mod = (await import(specifier)) as { default: typeof BetterSqlite3 };
  } catch (cause) {
    throw new WebhookError(
      'invalid_config',
      'sqliteStore(path) needs the better-sqlite3 package: npm i better-sqlite3',
      {
        cause,
      },
    );
  }
  const db = new mod.default(path);
  // Before anything is written: a new file hands freed pages back (see cleanup); an existing one keeps
  // its mode until VACUUM (docs/retention.md).
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
  return db;
}

interface Opened {
  readonly db: Database;
  readonly s: Statements;
  /** Runs the items in one BEGIN IMMEDIATE … COMMIT (throws when BEGIN or COMMIT fails). */
  readonly commitBatch: (batch: readonly Pending[]) => void;
}

/** One queued operation of the group commit; `ok`/`value` hold its outcome after the batch ran. */
interface Pending {
  readonly name: string;
  readonly run: (db: Database, s: Statements) => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  ok: boolean;
  value: unknown;
}

function storeError(operation: string, cause: unknown): WebhookError {
  if (cause instanceof WebhookError) return cause;
  return new WebhookError('store_error', `SQLite store: ${operation} failed`, { cause });
}

export function sqliteStore<D extends Database>(db: D, options?: SqliteStoreOptions): SqliteStore<D>;
export function sqliteStore(path: string, options?: SqliteStoreOptions): SqliteStore;
export function sqliteStore(dbOrPath: Database | string, options: SqliteStoreOptions = {}): SqliteStore {
  checkKnownOptions('sqliteStore', options, SQLITE_STORE_KEYS);
  const table = sqlIdentifier(options.table ?? 'webhook_idempotency', 'table');
  const owned = typeof dbOrPath === 'string';
  const lock = new Mutex();
  let ready: Promise<Opened> | undefined;
  /** Set once the database is open, so operations skip awaiting `ready`. */
  let opened: Opened | undefined;

  const init = (): Promise<Opened> => {
    ready ??= (async () => {
      const db =
        typeof dbOrPath === 'string'
          ? await openDatabase(dbOrPath, options.synchronous ?? 'normal')
          : dbOrPath;
      // A database with nothing in it yet (the caller's new file) is made incremental too.
      const empty = db.prepare('SELECT count(*) AS n FROM sqlite_master').get() as { n: number };
      if (empty.n === 0) db.pragma('auto_vacuum = INCREMENTAL');
      db.exec(sqliteSchema(table));
      const s = prepare(db, table);
      // One transaction function for every batch (better-sqlite3 builds four wrappers per call).
      const batchTransaction = db.transaction(runItems);
      opened = { db, s, commitBatch: (batch) => batchTransaction.immediate(batch) };
      return opened;
    })().catch((cause: unknown) => {
      ready = undefined;
      throw storeError('open', cause);
    });
    return ready;
  };

  /**
   * Group commit: operations arriving in the same event-loop turn run in one `BEGIN IMMEDIATE …
   * COMMIT`, so concurrent requests share one WAL commit instead of paying one each (the commit, not
   * the statement, is what costs). Each caller is answered only after the commit, so a claim is
   * durable and visible to other processes before its handler runs. While a transactional handler
   * awaits inside an open transaction, the batch waits behind it instead of joining (and being rolled
   * back with) that transaction.
   */
  let pending: Pending[] = [];
  let scheduled = false;

  /** Runs inside the batch transaction; records each item's outcome on the item. */
  function runItems(batch: readonly Pending[]): void {
    const { db, s } = opened as Opened;
    for (const item of batch) {
      try {
        item.value = item.run(db, s);
        item.ok = true;
      } catch (error) {
        // A failed statement is rolled back on its own; the rest of the batch still commits.
        item.value = storeError(item.name, error);
      }
    }
  }

  const runBatch = (): void => {
    scheduled = false;
    const batch = pending;
    pending = [];
    // A lone operation (the sequential case) runs in autocommit: its one write statement is its own
    // transaction and commit, without the BEGIN IMMEDIATE … COMMIT round around it.
    if (batch.length === 1 && (opened as Opened).db.inTransaction === false) {
      const item = batch[0] as Pending;
      const { db, s } = opened as Opened;
      let value: unknown;
      try {
        value = item.run(db, s);
      } catch (error) {
        item.reject(storeError(item.name, error));
        return;
      }
      item.resolve(value);
      return;
    }
    try {
      (opened as Opened).commitBatch(batch);
    } catch (cause) {
      // BEGIN or COMMIT failed: nothing in the batch happened.
      for (const item of batch) item.reject(storeError(item.name, cause));
      return;
    }
    for (const item of batch) {
      if (item.ok) item.resolve(item.value);
      else item.reject(item.value);
    }
  };

  const flush = (): void => {
    if (lock.idle) runBatch();
    else
      lock.run(runBatch).catch((error: unknown) => {
        for (const item of pending.splice(0)) item.reject(error);
        scheduled = false;
      });
  };

  const enqueue = <T>(name: string, run: (db: Database, s: Statements) => T): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      pending.push({
        name,
        run,
        resolve: resolve as (value: unknown) => void,
        reject,
        ok: false,
        value: undefined,
      });
      if (scheduled) return;
      scheduled = true;
      setImmediate(flush);
    });

  const op = <T>(name: string, run: (db: Database, s: Statements) => T): Promise<T> => {
    if (opened !== undefined) return enqueue(name, run);
    return init().then(() => enqueue(name, run));
  };

  const stateOf = (s: Statements, key: string, now: number): ClaimResult => {
    const row = s.state.get(key);
    if (row === undefined || row.expires_at <= now) return 'claimed';
    return row.state === 'done' ? 'duplicate' : 'in_progress';
  };

  /** Incremental vacuum a step at a time, through the same queue as every other write. */
  const vacuum = (options: CleanupOptions | undefined, checkpoint: () => Promise<void>): Promise<number> => {
    let freed = 0;
    const step = vacuumSizer();
    return inBatches(options, async () => {
      const batch = await op('vacuum', (db) => {
        if (Number(db.pragma('auto_vacuum', { simple: true })) !== 2) return { removed: 0, more: false };
        const { free, left } = vacuumStep(db, step);
        if (free === 0) return { removed: 0, more: false };
        freed += free - left;
        return { removed: free - left, more: left > 0 && left < free };
      });
      await checkpoint();
      return batch;
    }).then(() => freed);
  };

  const queue: EventQueue = {
    enqueue: (id, payload, { now }) => {
      const key = storeKey(id);
      return op('enqueue', (_db, s) => s.enqueue.run({ key, payload, now }).changes > 0);
    },
    dequeue: ({ now, leaseMs, limit }: DequeueOptions) =>
      op('dequeue', (_db, s) =>
        s.dequeue.all({ now, until: now + leaseMs, limit }).map(
          (row): QueuedEvent => ({
            seq: String(row.seq),
            key: row.key,
            payload: row.payload,
            attempts: row.attempts,
          }),
        ),
      ),
    extend: (seq, { now, leaseMs, attempts }) =>
      op(
        'extend',
        (_db, s) => s.extendRow.run({ seq: Number(seq), until: now + leaseMs, attempts }).changes > 0,
      ),
    ack: (seq) =>
      op('ack', (_db, s) => {
        s.ack.run(Number(seq));
      }),
    retry: (seq, { availableAt, error, countAttempt }) =>
      op('retry', (_db, s) => {
        s.retry.run({ seq: Number(seq), at: availableAt, error, refund: countAttempt === false ? 1 : 0 });
      }),
    fail: (seq, { error }) =>
      op('fail', (_db, s) => {
        s.fail.run({ seq: Number(seq), error });
      }),
    counts: () =>
      op('counts', (_db, s) => {
        const row = s.counts.get();
        return { pending: row?.pending ?? 0, failed: row?.failed ?? 0 };
      }),
  };

  return {
    name: 'sqlite',
    queue,
    database: async () => (await init()).db,
    claim: (id: string, { leaseMs, now, token }: ClaimOptions) => {
      const key = storeKey(id);
      return op('claim', (_db, s): ClaimResult => {
        // The upsert alone is atomic (across processes too); the follow-up read only names the loser's
        // reason, and a row that vanished in between is reported as in_progress (the sender retries).
        if (s.claim.run(key, token, now + leaseMs, now).changes > 0) return 'claimed';
        const state = stateOf(s, key, now);
        return state === 'claimed' ? 'in_progress' : state;
      });
    },
    extend: (id: string, { leaseMs, now, token }: ClaimOptions) => {
      const key = storeKey(id);
      return op('extend', (_db, s) => s.extend.run({ key, token, expires: now + leaseMs, now }).changes > 0);
    },
    complete: (id: string, { ttlMs, now }: CompleteOptions) => {
      const key = storeKey(id);
      return op('complete', (_db, s) => {
        // Same effect as the upsert alone (done, whatever the row held), one B-tree search cheaper.
        if (s.completeRow.run(now + ttlMs, key).changes === 0) s.complete.run(key, now + ttlMs);
      });
    },
    release: (id, { token }) => {
      const key = storeKey(id);
      return op('release', (_db, s) => {
        s.release.run({ key, token });
      });
    },
    cleanup: async (now: number, options?: CleanupOptions) => {
      // Walks the primary key from a cursor: each batch reads up to `batchSize` keys in order (fewer
      // when a batch overran the time budget) and deletes the expired ones among them, so it costs
      // the same whether none or all of them expired.
      const size = budgetedSize(batchSizeOf(options, 'sqliteStore.cleanup'), { min: MIN_CLEANUP_BATCH });
      let cursor = '';
      const { db } = await init();
      return offloadCheckpoints(db, async (checkpoint) => {
        const removed = await inBatches(options, async () => {
          const batch = await op('cleanup', (_db, s) => {
            const started = performance.now();
            const edge = s.cleanupEdge.get(cursor, size.size - 1);
            if (edge === undefined) return { removed: s.cleanupTail.run(cursor, now).changes, more: false };
            const deleted = s.cleanupRange.run(cursor, edge.key, now).changes;
            cursor = edge.key;
            size.took(performance.now() - started);
            return { removed: deleted, more: true };
          });
          if (batch.removed > 0) await checkpoint();
          return batch;
        });
        if (!options?.signal?.aborted) await vacuum(options, checkpoint);
        return removed;
      });
    },
    async transaction<T>(
      id: string,
      { ttlMs, now }: TransactionOptions,
      fn: (tx: Database) => T | Promise<T>,
    ): Promise<TransactionResult<T>> {
      const key = storeKey(id);
      const { db, s } = await init();
      return lock.run(async (): Promise<TransactionResult<T>> => {
        try {
          db.exec('BEGIN IMMEDIATE');
        } catch (cause) {
          throw storeError('begin', cause);
        }
        try {
          if (s.markDone.run({ key, expires: now + ttlMs, now }).changes === 0) {
            const state = stateOf(s, key, now);
            db.exec('ROLLBACK');
            return { status: state === 'duplicate' ? 'duplicate' : 'in_progress' };
          }
          const value = await fn(db);
          db.exec('COMMIT');
          return { status: 'committed', value };
        } catch (error) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw error;
        }
      });
    },
    async close() {
      if (!owned || ready === undefined) return;
      const { db } = await ready;
      db.close();
      ready = undefined;
      opened = undefined;
    },
  };
}
