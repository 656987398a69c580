/**
 * Signing out of the portal ends the session on the server, not only in the browser: a copy of the
 * cookie taken before sign-out (another device, a proxy log, malware) is refused afterwards for pages
 * and for actions (rotating a secret changes nothing), while another session of the same tenant keeps
 * working. The revocation is stored in the outbox's database (SQLite and PostgreSQL), so a new portal
 * instance on the same database refuses the copy too, and expired revocations are pruned.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { createPortalHandler } from '../../runtime/portal/handler.js';
import { createPortalLink } from '../../runtime/portal/link.js';
import { toNodeListener } from '../../runtime/portal/node-listener.js';
import { LOCAL, petContract } from '../sender/helpers.js';
import { missing, pgSchema } from './services.js';

const KEY = 'signout-test-key-0123456789abcdef-0123456789';
const P = '/webhooks/portal';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-signout-'));
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterAll(async () => {
  for (const fn of cleanups.reverse()) await fn();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Backend {
  readonly name: string;
  readonly skip: boolean;
  /** A new outbox (a new instance) on the backend's one database. */
  open(): Promise<Outbox>;
  /** Revocation rows in the database, counted directly. */
  countRevocations(): Promise<number>;
  /** Drops the revocation table, as in a database made by an older version. */
  dropRevocations(): Promise<void>;
}

const sqlitePath = path.join(dir, 'outbox.db');
let pgDb: ReturnType<typeof pgSchema> | undefined;

const backends: Backend[] = [
  {
    name: 'sqlite',
    skip: false,
    async open() {
      const outbox = sqliteOutbox(sqlitePath, { tenancy: 'multi' });
      cleanups.push(() => outbox.close());
      await outbox.init();
      return outbox;
    },
    async countRevocations() {
      const { default: Database } = await import('better-sqlite3');
      const db = new Database(sqlitePath, { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM webhook_revoked_sessions').get() as { n: number }).n;
      } finally {
        db.close();
      }
    },
    async dropRevocations() {
      const { default: Database } = await import('better-sqlite3');
      const db = new Database(sqlitePath);
      try {
        db.exec('DROP TABLE webhook_revoked_sessions');
      } finally {
        db.close();
      }
    },
  },
  {
    name: 'postgres',
    skip: missing('DATABASE_URL'),
    async open() {
      if (!pgDb) {
        pgDb = pgSchema('signout');
        const db = pgDb;
        cleanups.push(() => db.drop());
      }
      const outbox = postgresOutbox(pgDb.pool, { schema: pgDb.schema, tenancy: 'multi' });
      await outbox.init();
      return outbox;
    },
    async countRevocations() {
      const db = pgDb as NonNullable<typeof pgDb>;
      const { rows } = await db.pool.query(
        `SELECT count(*)::int AS n FROM "${db.schema}".webhook_revoked_sessions`,
      );
      return (rows[0] as { n: number }).n;
    },
    async dropRevocations() {
      const db = pgDb as NonNullable<typeof pgDb>;
      await db.pool.query(`DROP TABLE "${db.schema}".webhook_revoked_sessions`);
    },
  },
];

/** The portal on `outbox`, served by node:http on 127.0.0.1. */
async function serve(outbox: Outbox): Promise<{ url: string; link(tenant: string): string }> {
  const handler = createPortalHandler({
    outbox,
    contract: petContract(),
    key: KEY,
    urlPolicy: LOCAL,
    onError: (error) => console.error(error),
  });
  const server = http.createServer(toNodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, link: (tenant) => createPortalLink({ key: KEY, tenant, portalUrl: `${url}${P}` }) };
}

/** Signs in with a link; the session cookie (`gw_portal=…`). */
async function signIn(link: string): Promise<string> {
  const response = await fetch(link, { redirect: 'manual' });
  expect(response.status).toBe(200);
  return (response.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
}

const get = (url: string, cookie: string) => fetch(url, { headers: { cookie }, redirect: 'manual' });

const post = (url: string, cookie: string, fields: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });

async function csrfOf(url: string, cookie: string): Promise<string> {
  const match = /name="_csrf" value="([^"]+)"/.exec(await (await get(`${url}${P}/`, cookie)).text());
  if (!match) throw new Error('no CSRF field on the page');
  return match[1] as string;
}

for (const backend of backends) {
  describe.skipIf(backend.skip)(`${backend.name}: portal sign-out`, () => {
    it('refuses a copied cookie after sign-out, for pages and actions; other sessions keep working', async () => {
      const outbox = await backend.open();
      const portal = await serve(outbox);
      const endpoint = await outbox.createEndpoint(
        {
          tenant: 'acme',
          url: 'https://hooks.example.com/acme',
          events: ['pet.adopted'],
          secret: 'whsec_c2lnbm91dC10ZXN0LXNlY3JldC0wMTIzNDU2Nzg5',
        },
        Date.now(),
      );
      const endpointPage = `${portal.url}${P}/endpoints/${endpoint.id}`;

      const copied = await signIn(portal.link('acme'));
      const other = await signIn(portal.link('acme'));
      expect((await get(endpointPage, copied)).status).toBe(200);
      const copiedCsrf = await csrfOf(portal.url, copied);

      const signedOut = await post(`${portal.url}${P}/logout`, copied, { _csrf: copiedCsrf });
      expect(signedOut.status).toBe(200);
      expect(signedOut.headers.getSetCookie()[0]).toMatch(/^gw_portal=; /);

      // The copy, replayed: a page and a state-changing action answer like no session at all.
      for (const url of [`${portal.url}${P}/`, endpointPage]) {
        const page = await get(url, copied);
        expect(page.status, url).toBe(401);
        expect(await page.text()).not.toContain('hooks.example.com');
      }
      const rotate = await post(`${endpointPage}/rotate-secret`, copied, { _csrf: copiedCsrf });
      expect(rotate.status).toBe(401);
      expect(await rotate.text()).not.toContain('whsec_');
      expect((await outbox.getEndpoint(endpoint.id))?.secrets).toEqual(endpoint.secrets);
      // Signing out again with the copy is refused too (there is no session left to end).
      expect((await post(`${portal.url}${P}/logout`, copied, { _csrf: copiedCsrf })).status).toBe(401);
      // Sign-out needs the session and its CSRF token: another session's form cannot end it.
      expect((await post(`${portal.url}${P}/logout`, other, { _csrf: copiedCsrf })).status).toBe(403);
      expect((await post(`${portal.url}${P}/logout`, '', {})).status).toBe(401);

      // The other session of the same tenant was not signed out.
      expect((await get(endpointPage, other)).status).toBe(200);
      const rotated = await post(`${endpointPage}/rotate-secret`, other, {
        _csrf: await csrfOf(portal.url, other),
      });
      expect(rotated.status).toBe(200);
      expect((await outbox.getEndpoint(endpoint.id))?.secrets).toHaveLength(2);

      // A new portal on a new outbox instance, same database: the revocation was stored.
      const again = await serve(await backend.open());
      expect((await get(`${again.url}${P}/`, copied)).status).toBe(401);
      expect((await get(`${again.url}${P}/`, other)).status).toBe(200);
    });

    it('keeps a revocation until its session would have expired, then prunes it', async () => {
      const outbox = await backend.open();
      const t = Date.UTC(2026, 0, 1);
      await outbox.revokeSession('sid_old', t + 1000, t);
      expect(await outbox.isSessionRevoked('sid_old', t)).toBe(true);
      expect(await outbox.isSessionRevoked('sid_old', t + 999)).toBe(true);
      expect(await outbox.isSessionRevoked('sid_never', t)).toBe(false);
      // Past the session's expiry the token itself is refused; the record no longer matters.
      expect(await outbox.isSessionRevoked('sid_old', t + 1000)).toBe(false);
      const before = await backend.countRevocations();
      // Revoking twice is fine (a double-clicked sign-out).
      await outbox.revokeSession('sid_new', t + 5000, t + 2000);
      await outbox.revokeSession('sid_new', t + 5000, t + 2000);
      expect(await outbox.isSessionRevoked('sid_new', t + 2000)).toBe(true);
      // The insert pruned the expired record.
      expect(await backend.countRevocations()).toBe(before);
      expect(await outbox.isSessionRevoked('sid_old', t)).toBe(false);
    });

    it('adds the revocation table to an outbox made before it, when that outbox opens', async () => {
      await backend.dropRevocations();
      const outbox = await backend.open();
      await outbox.revokeSession('sid_upgraded', Date.now() + 60_000, Date.now());
      expect(await outbox.isSessionRevoked('sid_upgraded', Date.now())).toBe(true);
    });
  });
}
