/** Shared fixtures of the sender tests: a small contract, local HTTP servers, temp SQLite files, PG schemas. */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { z } from 'zod';
import { type Contract, defineContract } from '../../runtime/contract.js';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import type { Tenancy } from '../../runtime/deliver/tenant.js';
import { missingEnv } from '../support/requires.js';

// A type alias (not an interface) so it has the implicit index signature EventMapBase asks for.
export type PetEvents = {
  'pet.adopted': { petId: string; by: string };
  'pet.created': { petId: string; name: string };
};

export const PetAdopted = z.object({ petId: z.string(), by: z.string() });
export const PetCreated = z.object({ petId: z.string(), name: z.string().min(1) });

export function petContract(
  retry: Contract['retry'] = { kind: 'list', delays: [0, 5, 300] },
): Contract<PetEvents> {
  return defineContract<PetEvents>({
    name: 'pets',
    events: { 'pet.adopted': { schema: PetAdopted }, 'pet.created': { schema: PetCreated } },
    signature: { kind: 'standard-webhooks' },
    envelope: { kind: 'envelope' },
    selector: { kind: 'envelope-type' },
    retry,
  });
}

/** Local receiver policy: plain http and the loopback address allowed. */
export const LOCAL = { allowHttpHosts: ['127.0.0.1', 'localhost'], allowAddresses: ['127.0.0.1'] } as const;

export interface TestServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startServer(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer({ keepAliveTimeout: 10_000 }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Serves a Web-standard handler (the management API) over real HTTP on 127.0.0.1. */
export function startWebServer(handler: (request: Request) => Promise<Response>): Promise<TestServer> {
  return startServer(async (req, res) => {
    const body = await readBody(req);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    const response = await handler(
      new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method ?? 'GET',
        headers,
        ...(body.length > 0 ? { body: new Uint8Array(body) } : {}),
      }),
    );
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      out[name] = value;
    });
    res.writeHead(response.status, out);
    res.end(Buffer.from(await response.arrayBuffer()));
  });
}

export function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `gw-${prefix}-`));
}

/** A controllable clock. */
export function virtualClock(start = Date.UTC(2026, 0, 1)) {
  let t = start;
  return {
    now: () => t,
    set: (value: number) => {
      t = value;
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
}

/** Deterministic RNG (mulberry32). */
export function seededRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export const DATABASE_URL = process.env.DATABASE_URL;

/** True (skip, with the reason printed) without DATABASE_URL; throws under CI=true (see test/support/requires.ts). */
export function warnNoDatabase(what: string): boolean {
  return missingEnv('DATABASE_URL', what);
}

/** A pool on a fresh schema, dropped by `drop()`. */
export async function pgSchema(
  name: string,
): Promise<{ pool: pg.Pool; schema: string; drop(): Promise<void> }> {
  const schema = `gw_${name}_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 8 });
  return {
    pool,
    schema,
    async drop() {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

export interface OutboxFixture {
  readonly name: 'sqlite' | 'postgres';
  readonly skip: boolean;
  create(
    tag: string,
    options?: { tenancy?: Tenancy },
  ): Promise<{ outbox: Outbox; cleanup(): Promise<void>; raw: unknown }>;
}

export const outboxFixtures: OutboxFixture[] = [
  {
    name: 'sqlite',
    skip: false,
    async create(tag, options = {}) {
      const dir = tempDir(tag);
      const outbox = sqliteOutbox(path.join(dir, 'outbox.db'), options);
      await outbox.init();
      return {
        outbox,
        raw: dir,
        async cleanup() {
          await outbox.close();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'postgres',
    // Read when a test asks, so files that import these fixtures for SQLite only never need PostgreSQL.
    get skip() {
      return missingEnv('DATABASE_URL', 'the PostgreSQL outbox tests');
    },
    async create(tag, options = {}) {
      const db = await pgSchema(tag);
      const outbox = postgresOutbox(db.pool, { schema: db.schema, ...options });
      await outbox.init();
      return { outbox, raw: db, cleanup: () => db.drop() };
    },
  },
];
