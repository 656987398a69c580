/**
 * The SQLite outbox's hot writes of one event-loop turn (the worker's claim and the completions of
 * the attempts that freed its slots) in one `BEGIN IMMEDIATE` transaction: a drain then commits once
 * per turn instead of once per claim and once per completion batch.
 *
 * The writes run bare inside it, with no savepoint each: a savepoint makes SQLite copy every page it
 * first touches to a statement journal, which cost more than the commit it saved. If one throws,
 * the turn's transaction is rolled back and each write runs again alone, in a transaction of its
 * own, so a failing write fails alone and the others still commit (if `BEGIN` fails, they all
 * do). A write must therefore be a function of the database alone: it may run twice, the first time
 * rolled back. `first` writes (completions) run before the others, so a claim in the same turn sees
 * the deliveries they finished (the next of an ordering key is due at once).
 */
import { type Db, immediateOn } from './immediate.js';

interface Write {
  readonly run: (d: Db) => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  value: unknown;
}

export type WriteInTurn = <R>(run: (d: Db) => R, options?: { first?: boolean }) => Promise<R>;

export function turnWrites(db: () => Promise<Db>): WriteInTurn {
  let first: Write[] = [];
  let rest: Write[] = [];
  let scheduled = false;
  /** Set inside the turn's transaction: false after a failure means `BEGIN` itself failed. */
  let begun = false;
  const all = immediateOn((d: Db, writes: Write[]) => {
    begun = true;
    for (const write of writes) write.value = write.run(d);
  });
  const one = immediateOn((d: Db, write: Write) => {
    write.value = write.run(d);
  });

  const flush = async (): Promise<void> => {
    scheduled = false;
    const writes = first.length === 0 ? rest : rest.length === 0 ? first : first.concat(rest);
    first = [];
    rest = [];
    let d: Db;
    try {
      d = await db();
    } catch (error) {
      for (const write of writes) write.reject(error);
      return;
    }
    begun = false;
    try {
      all(d)(d, writes);
      for (const write of writes) write.resolve(write.value);
      return;
    } catch (error) {
      // No transaction (the database is locked past the busy timeout): none of them can run now.
      if (!begun) {
        for (const write of writes) write.reject(error);
        return;
      }
    }
    // Rolled back: each on its own, so only what fails alone fails.
    for (const write of writes) {
      try {
        one(d)(d, write);
      } catch (error) {
        write.reject(error);
        continue;
      }
      write.resolve(write.value);
    }
  };

  return <R>(run: (d: Db) => R, options?: { first?: boolean }) =>
    new Promise<R>((resolve, reject) => {
      const write: Write = { run, resolve: resolve as (value: unknown) => void, reject, value: undefined };
      (options?.first ? first : rest).push(write);
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => void flush());
    });
}
