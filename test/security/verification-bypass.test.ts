/**
 * Endpoint verification cannot be bypassed: an endpoint that never acknowledged the challenge stays
 * disabled through Disable → Enable (manager, management API, portal), so a worker delivers nothing
 * to its URL. Verification is a fact of the endpoint (`verifiedAt`), kept by a disable, cleared by a
 * URL change, and added in place to outboxes made before it. Real SQLite and PostgreSQL, and a real
 * HTTP receiver on 127.0.0.1.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { isWebhookError } from '../../runtime/errors.js';
import { unsafeAllowAnyone } from '../../runtime/manage/authorize.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { createManagementHandler } from '../../runtime/manage/handler.js';
import { createPortalHandler } from '../../runtime/portal/handler.js';
import { createPortalLink } from '../../runtime/portal/link.js';
import { LOCAL, petContract, readBody, startServer, type TestServer } from '../sender/helpers.js';
import { missing, type PgSchema, pgSchema } from './services.js';

const PORTAL_KEY = 'verification-bypass-portal-key-0123456789abcdef';
const PORTAL = 'http://portal.test/webhooks/portal';
const contract = petContract({ kind: 'list', delays: [0] });

interface Backend {
  readonly name: string;
  readonly skip: boolean;
  /** A fresh outbox; `reopen` opens another on the same database (a restart after an upgrade). */
  open(): Promise<{
    outbox: Outbox;
    reopen(): Outbox;
    dropVerifiedColumn(): Promise<void>;
    cleanup(): Promise<void>;
  }>;
}

const backends: Backend[] = [
  {
    name: 'sqlite',
    skip: false,
    async open() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-verify-bypass-'));
      const file = path.join(dir, 'outbox.db');
      const opened: Outbox[] = [];
      const reopen = () => {
        const outbox = sqliteOutbox(file);
        opened.push(outbox);
        return outbox;
      };
      const outbox = reopen();
      await outbox.init();
      return {
        outbox,
        reopen,
        async dropVerifiedColumn() {
          const { default: Database } = await import('better-sqlite3');
          const db = new Database(file);
          db.exec('ALTER TABLE webhook_endpoints DROP COLUMN verified_at');
          db.close();
        },
        async cleanup() {
          for (const o of opened) await o.close();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'postgres',
    get skip() {
      return missing('DATABASE_URL');
    },
    async open() {
      const db: PgSchema = pgSchema('verify_bypass');
      const reopen = () => postgresOutbox(db.pool, { schema: db.schema });
      const outbox = reopen();
      await outbox.init();
      return {
        outbox,
        reopen,
        async dropVerifiedColumn() {
          await db.pool.query(`ALTER TABLE "${db.schema}".webhook_endpoints DROP COLUMN verified_at`);
        },
        cleanup: () => db.drop(),
      };
    },
  },
];

/** A receiver counting every request; it echoes the challenge only while `echo` is on. */
async function startReceiver() {
  const seen: { type: string }[] = [];
  const state = { echo: false };
  const server: TestServer = await startServer(async (req, res) => {
    const body = (await readBody(req)).toString();
    const parsed = JSON.parse(body) as { type: string; data: { challenge?: string } };
    seen.push({ type: parsed.type });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(state.echo ? JSON.stringify({ challenge: parsed.data.challenge }) : '{"ok":true}');
  });
  return {
    url: `${server.url}/hook`,
    state,
    seen,
    /** Requests other than verification challenges: signed events the URL never consented to. */
    deliveries: () => seen.filter((s) => s.type !== 'webhook.verification').length,
    close: () => server.close(),
  };
}

async function expectUnverified(work: Promise<unknown>): Promise<void> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isWebhookError(error, 'endpoint_unverified')) {
    throw new Error(`expected endpoint_unverified, got ${String(error)}`);
  }
}

describe.each(backends)('verification bypass on $name', (backend) => {
  let outbox: Outbox;
  let opened: Awaited<ReturnType<Backend['open']>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeEach(async () => {
    if (backend.skip) return;
    opened = await backend.open();
    outbox = opened.outbox;
    receiver = await startReceiver();
  });
  afterEach(async () => {
    if (backend.skip) return;
    await receiver.close();
    await opened.cleanup();
  });

  const manager = () => createEndpointManager({ outbox, contract, urlPolicy: LOCAL, verification: 'event' });

  /** Registers against the non-echoing receiver: stored disabled as `unverified`. */
  const registerUnverified = async (): Promise<string> => {
    const error = await manager()
      .register({ url: receiver.url, events: ['pet.adopted'] })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    if (!isWebhookError(error, 'endpoint_unverified')) throw new Error(`expected 422, got ${String(error)}`);
    const id = (error.details.endpoint as { id: string }).id;
    const stored = await outbox.getEndpoint(id);
    expect(stored).toMatchObject({ enabled: false, disabledReason: 'unverified' });
    expect(stored?.verifiedAt).toBeUndefined();
    return id;
  };

  /** A send and a worker run: nothing may reach the unverified URL. */
  const expectNothingDelivered = async () => {
    await createSender(contract, { outbox }).send('pet.adopted', { petId: 'p1', by: 'ann' });
    const worker = createWorker({ outbox, contract, urlPolicy: LOCAL, timeoutMs: 2000 });
    await worker.runOnce();
    await worker.stop();
    expect(receiver.deliveries()).toBe(0);
  };

  it.skipIf(backend.skip)('disable (manual) then enable() still verifies, and refuses', async () => {
    const id = await registerUnverified();
    const disabled = await outbox.disableEndpoint(id, 'manual', Date.now());
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'manual' });
    // The fact survives the new reason.
    expect(disabled?.verifiedAt).toBeUndefined();
    const requests = receiver.seen.length;
    await expectUnverified(manager().enable(id));
    // enable() made a fresh challenge request, which was not echoed.
    expect(receiver.seen.length).toBe(requests + 1);
    expect(await outbox.getEndpoint(id)).toMatchObject({ enabled: false });
    expect((await manager().get(id)).verifiedAt).toBeNull();
    await expectNothingDelivered();
  });

  it.skipIf(backend.skip)('POST /webhooks/{id}/enable after a manual disable answers 422', async () => {
    const id = await registerUnverified();
    await outbox.disableEndpoint(id, 'manual', Date.now());
    const handler = createManagementHandler({
      outbox,
      contract,
      urlPolicy: LOCAL,
      verification: 'event',
      authorize: unsafeAllowAnyone('default'),
    });
    const response = await handler(new Request(`http://api.test/webhooks/${id}/enable`, { method: 'POST' }));
    expect(response.status).toBe(422);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('endpoint_unverified');
    expect(await outbox.getEndpoint(id)).toMatchObject({ enabled: false });
    await expectNothingDelivered();
  });

  it.skipIf(backend.skip)("the portal's Disable then Enable does not enable it", async () => {
    const id = await registerUnverified();
    const portal = createPortalHandler({
      outbox,
      contract,
      key: PORTAL_KEY,
      urlPolicy: LOCAL,
      verification: 'event',
      onError: (error) => console.error(error),
    });
    const link = createPortalLink({ key: PORTAL_KEY, tenant: 'default', portalUrl: PORTAL });
    const opening = await portal(new Request(link));
    const cookie = (opening.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const page = await (
      await portal(new Request(`${PORTAL}/endpoints/${id}`, { headers: { cookie } }))
    ).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] as string;
    expect(csrf).toBeDefined();
    const post = (action: string) =>
      portal(
        new Request(`${PORTAL}/endpoints/${id}/${action}`, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ _csrf: csrf }).toString(),
        }),
      );
    expect((await post('disable')).status).toBe(303);
    expect((await outbox.getEndpoint(id))?.verifiedAt).toBeUndefined();
    expect((await post('enable')).status).toBe(422);
    expect(await outbox.getEndpoint(id)).toMatchObject({ enabled: false });
    const detail = await (
      await portal(new Request(`${PORTAL}/endpoints/${id}`, { headers: { cookie } }))
    ).text();
    expect(detail).toContain('not verified');
    await expectNothingDelivered();
  });

  it.skipIf(backend.skip)(
    'an echoing receiver is verified (verifiedAt), and re-enables after a disable',
    async () => {
      receiver.state.echo = true;
      const { endpoint } = await manager().register({ url: receiver.url, events: ['pet.adopted'] });
      expect(endpoint.enabled).toBe(true);
      expect(endpoint.verifiedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect((await outbox.getEndpoint(endpoint.id))?.verifiedAt).toBeTypeOf('number');
      await outbox.disableEndpoint(endpoint.id, 'manual', Date.now());
      receiver.state.echo = false;
      // Verified once at this URL: enabling needs no new challenge.
      await expect(manager().enable(endpoint.id)).resolves.toMatchObject({ enabled: true });
    },
  );

  it.skipIf(backend.skip)(
    'an unverified endpoint that verifies later gets verifiedAt and enables',
    async () => {
      const id = await registerUnverified();
      await outbox.disableEndpoint(id, 'manual', Date.now());
      receiver.state.echo = true;
      const enabled = await manager().enable(id);
      expect(enabled).toMatchObject({ enabled: true, disabledReason: null });
      expect(enabled.verifiedAt).not.toBeNull();
      expect((await outbox.getEndpoint(id))?.verifiedAt).toBeTypeOf('number');
    },
  );

  it.skipIf(backend.skip)('a URL change clears verification; a failed new URL is not stored', async () => {
    receiver.state.echo = true;
    const { endpoint } = await manager().register({ url: receiver.url, events: ['pet.adopted'] });
    const verifiedAt = (await outbox.getEndpoint(endpoint.id))?.verifiedAt;
    expect(verifiedAt).toBeTypeOf('number');

    // Through the manager: the new URL is challenged first; its failure changes nothing.
    const bad = await startReceiver();
    try {
      await expectUnverified(manager().update(endpoint.id, { url: bad.url }));
      expect(await outbox.getEndpoint(endpoint.id)).toMatchObject({ url: receiver.url, verifiedAt });

      // A new URL that verifies is recorded as verified in the same step.
      const good = await startReceiver();
      good.state.echo = true;
      try {
        const moved = await manager().update(endpoint.id, { url: good.url });
        expect(moved.url).toBe(good.url);
        expect(moved.verifiedAt).not.toBeNull();
      } finally {
        await good.close();
      }

      // Straight on the outbox, a new URL is unverified; same URL or other fields keep the fact.
      const kept = await outbox.updateEndpoint(endpoint.id, { description: 'x' }, Date.now());
      expect(kept?.verifiedAt).toBeTypeOf('number');
      const moved = await outbox.updateEndpoint(endpoint.id, { url: bad.url }, Date.now());
      expect(moved?.url).toBe(bad.url);
      expect(moved?.verifiedAt).toBeUndefined();
      await outbox.disableEndpoint(endpoint.id, 'manual', Date.now());
      await expectUnverified(manager().enable(endpoint.id));
      expect(await outbox.getEndpoint(endpoint.id)).toMatchObject({ enabled: false });
      expect(bad.deliveries()).toBe(0);
    } finally {
      await bad.close();
    }
  });

  it.skipIf(backend.skip)(
    'verification turned on later: an endpoint made without it verifies before enable()',
    async () => {
      const plain = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
      const { endpoint } = await plain.register({ url: receiver.url, events: ['pet.adopted'] });
      expect(endpoint).toMatchObject({ enabled: true, verifiedAt: null });
      await outbox.disableEndpoint(endpoint.id, 'consecutive_failures', Date.now());
      await expectUnverified(manager().enable(endpoint.id));
      expect(await outbox.getEndpoint(endpoint.id)).toMatchObject({ enabled: false });
      // With verification off, nothing is checked.
      await expect(plain.enable(endpoint.id)).resolves.toMatchObject({ enabled: true });
    },
  );

  it.skipIf(backend.skip)('an outbox made before verified_at gains the column in place', async () => {
    receiver.state.echo = true;
    const { endpoint } = await manager().register({ url: receiver.url, events: ['pet.adopted'] });
    await opened.dropVerifiedColumn();
    // Several processes opening the upgraded database at once.
    const upgraded = [opened.reopen(), opened.reopen(), opened.reopen()];
    await Promise.all(upgraded.map((o) => o.init()));
    const [first] = upgraded as [Outbox];
    // Nothing is known verified after the upgrade: it stays enabled, and verifies before a re-enable.
    expect(await first.getEndpoint(endpoint.id)).toMatchObject({ enabled: true });
    expect((await first.getEndpoint(endpoint.id))?.verifiedAt).toBeUndefined();
    const again = createEndpointManager({ outbox: first, contract, urlPolicy: LOCAL, verification: 'event' });
    await expect(again.verify(endpoint.id)).resolves.toMatchObject({ enabled: true });
    expect((await first.getEndpoint(endpoint.id))?.verifiedAt).toBeTypeOf('number');
  });
});
