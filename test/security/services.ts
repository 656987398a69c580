/**
 * The real servers the fault tests run against (PostgreSQL, Redis), and a fresh PostgreSQL schema
 * per test file, since other test files share the servers. Without a server a test file skips with a
 * warning; under CI=true it fails instead, as nothing may skip there.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';

export const DATABASE_URL = process.env['DATABASE_URL'];
export const REDIS_URL = process.env['REDIS_URL'];

/** True when the tests needing `name` must skip; throws under CI=true. */
export function missing(name: 'DATABASE_URL' | 'REDIS_URL'): boolean {
  if (process.env[name] !== undefined) return false;
  if (process.env['CI'] === 'true') throw new Error(`${name} is required under CI=true`);
  console.warn(`skipping tests that need ${name}: it is not set`);
  return true;
}

export interface PgSchema {
  readonly schema: string;
  /** A pool on the real server, for setup and assertions (not through any proxy). */
  readonly pool: pg.Pool;
  drop(): Promise<void>;
}

export function pgSchema(name: string): PgSchema {
  const schema = `gw_sec_${name}_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
  return {
    schema,
    pool,
    async drop() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` until it holds (bounded, so a regression fails instead of hanging). */
export async function eventually(condition: () => boolean | Promise<boolean>, what: string, ms = 10_000) {
  const until = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** `work`, or a rejection naming `what` after `ms`: a hang fails the test with a reason. */
export function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
