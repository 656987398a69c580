/**
 * The SQLite outbox's connection type and its write transactions, apart from `context.ts` so the
 * turn writer (which the context builds) can use them too.
 */
import type { BetterSqlite3 } from '../../../drivers/better-sqlite3.js';

export type Db = BetterSqlite3.Database;

/**
 * `fn` as a `BEGIN IMMEDIATE` transaction of the connection it is given (a savepoint inside a
 * caller's transaction), made once per connection: building a transaction function per call is
 * measurable on the enqueue path and on every turn's writes.
 */
export function immediateOn<A extends unknown[], R>(
  fn: (d: Db, ...args: A) => R,
): (d: Db) => (d: Db, ...args: A) => R {
  const made = new WeakMap<Db, (d: Db, ...args: A) => R>();
  return (d) => {
    let run = made.get(d);
    if (run === undefined) {
      run = d.transaction(fn).immediate;
      made.set(d, run);
    }
    return run;
  };
}
