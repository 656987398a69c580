/**
 * The part of better-sqlite3's API the SQLite store and outbox call, declared structurally: the runtime
 * type-checks without the driver or `@types/better-sqlite3`, and a real `Database` is assignable
 * (test/types/drivers.test-d.ts checks that against the driver's own types). Types only.
 */

// biome-ignore lint/suspicious/noExplicitAny: better-sqlite3 types transaction callbacks this way.
type AnyFunction = (...params: any[]) => unknown;
type ArgumentTypes<F extends AnyFunction> = F extends (...args: infer A) => unknown ? A : never;

export declare namespace BetterSqlite3 {
  interface RunResult {
    readonly changes: number;
    readonly lastInsertRowid: number | bigint;
  }

  interface Statement<P extends unknown[] = unknown[], R = unknown> {
    run(...params: P): RunResult;
    get(...params: P): R | undefined;
    all(...params: P): R[];
    iterate(...params: P): IterableIterator<R>;
  }

  interface Transaction<F extends AnyFunction> {
    (...params: ArgumentTypes<F>): ReturnType<F>;
    deferred(...params: ArgumentTypes<F>): ReturnType<F>;
    immediate(...params: ArgumentTypes<F>): ReturnType<F>;
    exclusive(...params: ArgumentTypes<F>): ReturnType<F>;
  }

  interface Database {
    readonly inTransaction: boolean;
    // biome-ignore lint/complexity/noBannedTypes: the driver's own constraint (positional or named parameters).
    prepare<P extends unknown[] | {} = unknown[], R = unknown>(
      source: string,
    ): P extends unknown[] ? Statement<P, R> : Statement<[P], R>;
    transaction<F extends AnyFunction>(fn: F): Transaction<F>;
    exec(source: string): this;
    pragma(source: string, options?: { readonly simple?: boolean }): unknown;
    close(): this;
  }
}

/** The driver's default export, as `sqliteStore(path)` loads it. */
export declare const BetterSqlite3: new (filename: string) => BetterSqlite3.Database;
