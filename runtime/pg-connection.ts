/**
 * Dropped PostgreSQL connections must fail an operation, never the process. A `pg` client emits
 * `'error'` when its connection drops (server restart, network cut), and an `'error'` event nobody
 * listens to is thrown from the socket callback: the process dies. The pool listens on its idle
 * clients (and re-emits on itself); a client checked out with `pool.connect()`, or a lone `Client`,
 * has no listener unless its user adds one. The PostgreSQL store and outbox watch every client while
 * they hold it, listen on the pools they are given, and turn a lost connection into a store error.
 */
import type { Client, Pool, PoolClient } from './drivers/pg.js';

type Emitter = Pick<Pool, 'on'>;

const guarded = new WeakSet<object>();

/**
 * Listens for `'error'` on a pool (an idle client whose connection dropped: pg has already removed
 * it, and the next checkout opens a fresh one) or a lone client (every later query fails instead).
 * Idempotent; the user's own listeners still run.
 */
export function guardConnection(db: Pool | Client): void {
  if (guarded.has(db)) return;
  guarded.add(db);
  (db as Emitter).on('error', () => {
    // Nothing to do here: the operation that needed the connection fails and reports it.
  });
}

export interface ConnectionWatch {
  /** The error the connection dropped with while watched, if it did. */
  lost(): Error | undefined;
  /** Stop watching (before the client goes back to its pool, which then listens itself). */
  stop(): void;
}

/** Watches a checked-out client (or a lone client during one operation) for a dropped connection. */
export function watchConnection(client: PoolClient | Client): ConnectionWatch {
  let lost: Error | undefined;
  const onError = (error: Error): void => {
    lost ??= error;
  };
  client.on('error', onError);
  return {
    lost: () => lost,
    stop: () => {
      client.removeListener('error', onError);
    },
  };
}
