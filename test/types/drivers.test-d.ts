/**
 * Compile-only: the runtime's structural driver types (runtime/drivers/) accept the drivers' real
 * instances, typed by their own `@types` (devDependencies here, never needed by users), and the
 * stores hand transactional handlers the driver's own types. Checked by `npm run typecheck`; every
 * `@ts-expect-error` must be needed.
 */
import type Database from 'better-sqlite3';
import type { Cluster, Redis } from 'ioredis';
import type pg from 'pg';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import type { BetterSqlite3 } from '../../runtime/drivers/better-sqlite3.js';
import type { Redis as RedisClient, Cluster as RedisCluster } from '../../runtime/drivers/ioredis.js';
import type { Client, Pool, PoolClient } from '../../runtime/drivers/pg.js';
import { postgresStore } from '../../runtime/stores/postgres.js';
import { redisStore } from '../../runtime/stores/redis.js';
import { sqliteStore } from '../../runtime/stores/sqlite.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <T extends true>(): T => true as T;

declare const sqlite: Database.Database;
declare const pool: pg.Pool;
declare const client: pg.Client;
declare const poolClient: pg.PoolClient;
declare const redis: Redis;
declare const cluster: Cluster;

export const assignable: {
  sqlite: BetterSqlite3.Database;
  statement: BetterSqlite3.Statement<[string], { n: number }>;
  pool: Pool;
  client: Client;
  poolClient: PoolClient;
  redis: RedisClient;
  cluster: RedisCluster;
} = {
  sqlite,
  statement: sqlite.prepare<[string], { n: number }>('SELECT 1 AS n WHERE ? IS NOT NULL'),
  pool,
  client,
  poolClient,
  redis,
  cluster,
};

export const stores = [
  sqliteStore(sqlite),
  sqliteOutbox(sqlite),
  postgresStore(pool),
  postgresStore(client),
  postgresOutbox(pool),
  redisStore(redis),
  redisStore(cluster),
];

// Transactional handlers get the driver's own types back.
export const txTypes = [
  same<
    Equal<
      Parameters<Parameters<ReturnType<typeof sqliteStore<Database.Database>>['transaction']>[2]>[0],
      Database.Database
    >
  >(),
];
const fromPool = postgresStore(pool);
const fromClient = postgresStore(client);
type TxOf<S> = S extends { transaction(k: string, o: never, fn: (tx: infer Tx) => unknown): unknown }
  ? Tx
  : never;
export const pgTx = [
  same<Equal<TxOf<typeof fromPool>, pg.PoolClient>>(),
  same<Equal<TxOf<typeof fromClient>, pg.Client>>(),
];

// Something that is not a driver is still rejected.
// @ts-expect-error no query method
postgresStore({ totalCount: 1, connect: async () => poolClient });
// @ts-expect-error no eval
redisStore({ set: redis.set.bind(redis) });
// @ts-expect-error a path or a Database, not a number
sqliteStore(42);
