/**
 * Tenants in both outboxes: fan-out goes to one tenant's endpoints only (never a broadcast), a
 * multi-tenant outbox refuses to guess a missing tenant, every scoped read and write misses another
 * tenant's rows, and tables made before tenants migrate in place to the default tenant.
 */
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { isWebhookError } from '../../runtime/errors.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { LOCAL, outboxFixtures, petContract, pgSchema, tempDir } from './helpers.js';

const contract = petContract({ kind: 'list', delays: [0] });
const adoption = { petId: 'p1', by: 'alice' };
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (isWebhookError(error) ? error.code : String(error)),
  );

describe.each(outboxFixtures)('tenants on $name', (fixture) => {
  let cleanups: Array<() => Promise<void>> = [];
  const open = async (tenancy: 'single' | 'multi') => {
    const made = await fixture.create(`tenants_${tenancy}`, { tenancy });
    cleanups.push(made.cleanup);
    return made.outbox;
  };
  beforeEach(() => {
    cleanups = [];
  });
  afterEach(async () => {
    for (const fn of cleanups) await fn();
  });

  it.skipIf(fixture.skip)('a multi-tenant outbox needs a tenant to send and to register', async () => {
    const outbox = await open('multi');
    expect(outbox.tenancy).toBe('multi');
    const sender = createSender(contract, { outbox });
    expect(await codeOf(sender.send('pet.adopted', adoption))).toBe('tenant_required');
    expect(
      await codeOf(
        outbox.enqueue({ id: 'm', eventType: 'pet.adopted', body: '{}', headers: {}, createdAt: 0 }),
      ),
    ).toBe('tenant_required');
    expect(await outbox.listDeliveries()).toEqual([]);
    expect(
      await codeOf(outbox.createEndpoint({ url: 'https://x.example/h', events: ['*'], secret: 's' }, 0)),
    ).toBe('tenant_required');
    expect(() => createEndpointManager({ outbox, contract })).toThrow(/multi-tenant/);
    expect(await codeOf(sender.send('pet.adopted', adoption, { tenant: '' }))).toBe('invalid_argument');
    // With a tenant: its subscribed endpoints only, even with '*' elsewhere and an explicit id list.
    const acme = createEndpointManager({ outbox, contract, tenant: 'acme', urlPolicy: LOCAL });
    const bravo = acme.forTenant('bravo');
    const a = await acme.register({ url: 'http://127.0.0.1:9/a', events: ['pet.adopted'] });
    const b = await bravo.register({ url: 'http://127.0.0.1:9/b', events: ['*'] });
    const sent = await sender.send('pet.adopted', adoption, { tenant: 'acme' });
    expect((await outbox.listDeliveries({ messageId: sent.messageId })).map((d) => d.endpointId)).toEqual([
      a.endpoint.id,
    ]);
    const aimed = await sender.send('pet.adopted', adoption, { tenant: 'bravo', endpoints: [a.endpoint.id] });
    expect(aimed.deliveryIds).toEqual([]);
    const none = await sender.send('pet.adopted', adoption, { tenant: 'nobody' });
    expect(none.deliveryIds).toEqual([]);
    expect((await outbox.getEndpoint(b.endpoint.id))?.tenant).toBe('bravo');
  });

  it.skipIf(fixture.skip)(
    'a single-tenant outbox sends to the default tenant unless told otherwise',
    async () => {
      const outbox = await open('single');
      const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
      expect(manager.tenant).toBe('default');
      const mine = await manager.register({ url: 'http://127.0.0.1:9/mine', events: ['*'] });
      const theirs = await manager
        .forTenant('acme')
        .register({ url: 'http://127.0.0.1:9/acme', events: ['*'] });
      const sender = createSender(contract, { outbox });
      const plain = await sender.send('pet.adopted', adoption);
      expect((await outbox.listDeliveries({ messageId: plain.messageId })).map((d) => d.endpointId)).toEqual([
        mine.endpoint.id,
      ]);
      const forAcme = await sender.send('pet.adopted', adoption, { tenant: 'acme' });
      expect(
        (await outbox.listDeliveries({ messageId: forAcme.messageId })).map((d) => d.endpointId),
      ).toEqual([theirs.endpoint.id]);
    },
  );

  it.skipIf(fixture.skip)('every scoped call misses another tenant’s rows and finds its own', async () => {
    const outbox = await open('multi');
    const ep = await outbox.createEndpoint(
      { tenant: 'acme', url: 'https://a.example/h', events: ['*'], secret: 's' },
      0,
    );
    const sent = await outbox.enqueue(
      { id: 'msg_1', eventType: 'pet.adopted', body: '{}', headers: {}, createdAt: 0 },
      { tenant: 'acme' },
    );
    const deliveryId = sent.deliveryIds[0] as string;
    const [claimed] = await outbox.claim({ owner: 'w', now: 10, leaseMs: 1000, limit: 1 });
    await outbox.complete({
      delivery: claimed!,
      now: 20,
      attempt: { startedAt: 10, durationMs: 1, statusCode: 500, outcome: 'failed' },
      resolution: { kind: 'dead', error: 'http_500' },
    });
    const run = async (tenant: string) => ({
      get: (await outbox.getEndpoint(ep.id, { tenant }))?.id,
      list: (await outbox.listEndpoints({ tenant })).map((e) => e.id),
      delivery: (await outbox.getDelivery(deliveryId, { tenant }))?.id,
      deliveries: (await outbox.listDeliveries({ tenant })).map((d) => d.id),
      attempts: (await outbox.listAttempts({ endpointId: ep.id, tenant })).length,
      redeliverMessage: await outbox.redeliver({ messageId: 'msg_1' }, 30, { tenant }),
      redeliverDelivery: await outbox.redeliver({ deliveryId }, 30, { tenant }),
      redeliverRange: await outbox.redeliver({ endpointId: ep.id }, 30, { tenant }),
      update: (await outbox.updateEndpoint(ep.id, { description: tenant }, 40, { tenant }))?.description,
      rotate: (await outbox.rotateSecret(ep.id, `s_${tenant}`, 50, 60, { tenant }))?.secrets.length,
      disable: (await outbox.disableEndpoint(ep.id, 'manual', 70, { tenant }))?.enabled,
      enable: (await outbox.enableEndpoint(ep.id, 80, { tenant }))?.enabled,
    });
    expect(await run('bravo')).toEqual({
      get: undefined,
      list: [],
      delivery: undefined,
      deliveries: [],
      attempts: 0,
      redeliverMessage: 0,
      redeliverDelivery: 0,
      redeliverRange: 0,
      update: undefined,
      rotate: undefined,
      disable: undefined,
      enable: undefined,
    });
    expect(await outbox.deleteEndpoint(ep.id, { tenant: 'bravo' })).toBe(false);
    const untouched = await outbox.getEndpoint(ep.id);
    expect(untouched).toMatchObject({ enabled: true, secrets: [{ secret: 's' }], updatedAt: 0 });
    expect(untouched?.description).toBeUndefined();
    expect(await outbox.getDelivery(deliveryId)).toMatchObject({ status: 'dead' });

    expect(await run('acme')).toEqual({
      get: ep.id,
      list: [ep.id],
      delivery: deliveryId,
      deliveries: [deliveryId],
      attempts: 1,
      redeliverMessage: 1,
      redeliverDelivery: 0, // already pending again
      redeliverRange: 0,
      update: 'acme',
      rotate: 2,
      disable: false,
      enable: true,
    });
    expect(await outbox.deleteEndpoint(ep.id, { tenant: 'acme' })).toBe(true);
  });
});

/** The endpoints table as the outboxes made it before tenants. */
const OLD_SQLITE_ENDPOINTS = `CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY, url TEXT NOT NULL, events TEXT NOT NULL, secrets TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1, disabled_reason TEXT, consecutive_failures INTEGER NOT NULL DEFAULT 0,
  rate_limit REAL, rate_tat INTEGER, description TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`;
const OLD_PG_ENDPOINTS = (table: string) => `CREATE TABLE ${table} (
  id text PRIMARY KEY, url text NOT NULL, events text[] NOT NULL, secrets jsonb NOT NULL,
  enabled boolean NOT NULL DEFAULT true, disabled_reason text, consecutive_failures integer NOT NULL DEFAULT 0,
  rate_limit double precision, rate_tat timestamptz, description text,
  created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`;

describe('tables made before tenants', () => {
  const check = async (outbox: Outbox) => {
    expect(await outbox.getEndpoint('ep_old')).toMatchObject({ id: 'ep_old', tenant: 'default' });
    const sender = createSender(contract, { outbox });
    const sent = await sender.send('pet.adopted', adoption, { tenant: 'default' });
    expect(sent.deliveryIds).toHaveLength(1);
    expect(await codeOf(sender.send('pet.adopted', adoption))).toBe('tenant_required');
    expect(await outbox.listEndpoints({ tenant: 'acme' })).toEqual([]);
  };

  it('SQLite: the endpoints become the default tenant’s, in place', async () => {
    const dir = tempDir('tenants-migrate');
    const file = `${dir}/o.db`;
    const old = new Database(file);
    old.exec(OLD_SQLITE_ENDPOINTS);
    old
      .prepare(
        `INSERT INTO webhook_endpoints (id, url, events, secrets, created_at, updated_at) VALUES (?, ?, ?, ?, 0, 0)`,
      )
      .run('ep_old', 'https://old.example/h', '["*"]', '[{"secret":"whsec_old","createdAt":0}]');
    old.close();
    const outbox = sqliteOutbox(file, { tenancy: 'multi' });
    try {
      await check(outbox);
    } finally {
      await outbox.close();
    }
    // Opening again is a no-op (the column exists now).
    const again = sqliteOutbox(file);
    expect((await again.listEndpoints()).map((e) => e.tenant)).toEqual(['default']);
    await again.close();
  });

  it.skipIf(!process.env.DATABASE_URL && process.env.CI !== 'true')(
    'PostgreSQL: the endpoints become the default tenant’s, in place',
    async () => {
      const db = await pgSchema('tenants_migrate');
      try {
        const table = `"${db.schema}"."webhook_endpoints"`;
        await db.pool.query(`CREATE SCHEMA "${db.schema}"`);
        await db.pool.query(OLD_PG_ENDPOINTS(table));
        await db.pool.query(
          `INSERT INTO ${table} (id, url, events, secrets, created_at, updated_at) VALUES ($1, $2, $3, $4, now(), now())`,
          ['ep_old', 'https://old.example/h', ['*'], JSON.stringify([{ secret: 'whsec_old', createdAt: 0 }])],
        );
        await check(postgresOutbox(db.pool, { schema: db.schema, tenancy: 'multi' }));
        const again = postgresOutbox(db.pool, { schema: db.schema });
        expect((await again.listEndpoints()).map((e) => e.tenant)).toEqual(['default']);
      } finally {
        await db.drop();
      }
    },
  );

  it('refuses an unknown tenancy', () => {
    expect(() => sqliteOutbox(':memory:', { tenancy: 'many' as never })).toThrow(/tenancy/);
  });
});
