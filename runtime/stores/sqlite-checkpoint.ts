/**
 * WAL checkpoints off the event loop while a long delete runs. A prune or cleanup writes tens of
 * thousands of pages; with SQLite's automatic checkpoint, every ~1000 of them one commit copies them
 * into the database file and fsyncs it — 10–30 ms during which this thread (and every request on it)
 * waits. While `offload` runs, automatic checkpoints are off on the caller's connection and a worker
 * thread with its own connection runs PASSIVE checkpoints instead (they never block the writer).
 *
 * A PASSIVE checkpoint running while the next batch starts leaves that batch's transaction reading
 * from the WAL, and SQLite only rewinds the WAL to its start in a write transaction that began with
 * every frame checkpointed. Batches a few ms apart never see that, so the WAL would grow by every
 * page the prune writes (more than the database's size, pages written again and again) and writes
 * would go to new file blocks instead of the same few megabytes. So once the WAL holds more than
 * WAL_LIMIT frames, `checkpoint()` waits (asynchronously: the event loop runs meanwhile) for a
 * checkpoint of everything, and the next batch starts the WAL over. (A reader in another process
 * holding an old snapshot keeps the WAL from starting over; batches then go at the checkpoints' pace.)
 *
 * Where that is not possible (no worker_threads, an in-memory database, a driver that cannot be
 * resolved), the work runs with the connection's own checkpoints, as before.
 */
import type { BetterSqlite3 } from '../drivers/better-sqlite3.js';

type Database = BetterSqlite3.Database & { readonly name?: string; readonly memory?: boolean };

/** Frames (pages) the WAL may hold before a batch waits for a full checkpoint: 16 MiB at 4 KiB pages. */
export const WAL_LIMIT = 4096;

interface Checkpointer {
  /** Ask for a checkpoint unless one is running. */
  poke(): void;
  /** Frames in the WAL at the last checkpoint. */
  readonly frames: number;
  /** Waits for the running checkpoint, then for one started afterwards (covering every commit so far). */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

// The worker: open the file, checkpoint on each message, answer with the WAL's frame count.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 0 });
parentPort.on('message', (m) => {
  if (m === 'stop') { db.close(); parentPort.close(); return; }
  let log = -1;
  try { log = Number(db.pragma('wal_checkpoint(PASSIVE)')[0].log); } catch {}
  parentPort.postMessage(log);
});
`;

async function startCheckpointer(db: Database): Promise<Checkpointer | undefined> {
  const file = db.name;
  if (typeof file !== 'string' || file === '' || file === ':memory:' || db.memory === true) return undefined;
  if (String(db.pragma('journal_mode', { simple: true })).toLowerCase() !== 'wal') return undefined;
  try {
    // Variable specifiers: bundlers for Web runtimes must not try to resolve these.
    const threads = 'node:worker_threads';
    const module = 'node:module';
    const { Worker } = (await import(threads)) as typeof import('node:worker_threads');
    const { createRequire } = (await import(module)) as typeof import('node:module');
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER, { eval: true, workerData: { file, driver } });
    worker.unref();
    let running: Promise<void> | undefined;
    let finish: (() => void) | undefined;
    let frames = 0;
    let failed = false;
    worker.on('message', (log: number) => {
      if (log >= 0) frames = log;
      running = undefined;
      finish?.();
    });
    // A failed worker only means checkpoints wait for the connection's own (restored at the end).
    worker.on('error', () => {
      failed = true;
      frames = 0;
      running = undefined;
      finish?.();
    });
    const request = (): Promise<void> => {
      if (failed) return Promise.resolve();
      running ??= new Promise<void>((resolve) => {
        finish = resolve;
        worker.postMessage('checkpoint');
      });
      return running;
    };
    return {
      poke() {
        void request();
      },
      get frames() {
        return frames;
      },
      async drain() {
        await running;
        await request();
        // The next write transaction starts the WAL over; the next checkpoint reports its new size.
        frames = 0;
      },
      async stop() {
        // One last checkpoint, so restoring the automatic ones leaves no backlog to the next commit.
        await running;
        await request();
        if (!failed) {
          worker.postMessage('stop');
          await new Promise((resolve) => worker.once('exit', resolve));
        }
      },
    };
  } catch {
    return undefined;
  }
}

/** Batches before the worker starts: a short prune (most runs) never pays for a thread. */
const START_AFTER = 16;

/**
 * Runs `work` with checkpoints in a worker thread; `work` awaits `checkpoint()` after each batch
 * (cheap: it asks the worker and returns at once, unless the WAL has outgrown WAL_LIMIT and a full
 * checkpoint is awaited). The worker starts at the START_AFTER-th batch.
 */
export async function offloadCheckpoints<T>(
  db: Database,
  work: (checkpoint: () => Promise<void>) => Promise<T>,
): Promise<T> {
  let batches = 0;
  let starting: Promise<Checkpointer | undefined> | undefined;
  let automatic: number | undefined;
  const checkpoint = async (): Promise<void> => {
    if (++batches < START_AFTER) return;
    starting ??= startCheckpointer(db).then((checkpointer) => {
      if (checkpointer !== undefined) {
        automatic = Number(db.pragma('wal_autocheckpoint', { simple: true }));
        db.pragma('wal_autocheckpoint = 0');
      }
      return checkpointer;
    });
    const checkpointer = await starting;
    if (checkpointer === undefined) return;
    if (checkpointer.frames > WAL_LIMIT) await checkpointer.drain();
    else checkpointer.poke();
  };
  try {
    return await work(checkpoint);
  } finally {
    const checkpointer = await starting;
    if (checkpointer !== undefined) {
      await checkpointer.stop();
      db.pragma(`wal_autocheckpoint = ${automatic}`);
    }
  }
}
