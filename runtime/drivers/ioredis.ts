/**
 * The part of ioredis the Redis store calls, declared structurally: the runtime type-checks without
 * ioredis, and a real `Redis` or `Cluster` is assignable (test/types/drivers.test-d.ts checks that
 * against the driver's own types). Types only.
 */

export interface Redis {
  /** `SET key value PX ms [NX]`: `'OK'`, or `null` when NX found the key. */
  set(key: string, value: string, px: 'PX', milliseconds: number): Promise<string | null>;
  set(key: string, value: string, px: 'PX', milliseconds: number, nx: 'NX'): Promise<string | null>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** A Redis Cluster client: the same two commands. */
export type Cluster = Redis;
