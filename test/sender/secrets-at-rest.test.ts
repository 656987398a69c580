/**
 * Endpoint secrets encrypted at rest (`secretKeys`), on both outboxes: the database holds only
 * AES-256-GCM ciphertext — after registration, rotation, and for rows written before keys were
 * configured — while the worker still signs with the plaintext; keys rotate (new first, old kept)
 * and the outbox re-encrypts under the new key when it opens; a missing key, an altered ciphertext
 * or one moved to another endpoint is a clear `invalid_key`, never a wrong signature.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { postgresOutbox } from '../../runtime/deliver/postgres-outbox.js';
import type { SecretKey } from '../../runtime/deliver/secret-box.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { isWebhookError } from '../../runtime/errors.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { LOCAL, outboxFixtures, petContract, readBody, startServer, type TestServer } from './helpers.js';

const contract = petContract({ kind: 'list', delays: [0] });
const k1: SecretKey = { id: 'k1', key: randomBytes(32) };
const k2: SecretKey = { id: 'k2', key: randomBytes(32).toString('base64') };
const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (isWebhookError(error) ? `${error.code}: ${error.message}` : String(error)),
  );

let receiver: TestServer;
let seen: Array<{ body: string; headers: Record<string, string> }> = [];
beforeAll(async () => {
  receiver = await startServer(async (req, res) => {
    seen.push({
      body: (await readBody(req)).toString('utf8'),
      headers: req.headers as Record<string, string>,
    });
    res.end('ok');
  });
});
afterAll(async () => {
  await receiver.close();
});

describe.each(outboxFixtures)('secrets at rest on $name', (fixture) => {
  let cleanup: () => Promise<void>;
  let raw: unknown;
  const opened: Outbox[] = [];
  /** Another outbox on the same tables, with other keys. */
  const reopen = (secretKeys?: SecretKey[]): Outbox => {
    const keys = secretKeys ? { secretKeys } : {};
    const outbox =
      fixture.name === 'sqlite'
        ? sqliteOutbox(path.join(raw as string, 'outbox.db'), keys)
        : postgresOutbox((raw as { pool: pg.Pool }).pool, {
            schema: (raw as { schema: string }).schema,
            ...keys,
          });
    opened.push(outbox);
    return outbox;
  };
  /** The `secrets` column of every endpoint, as stored. */
  const stored = async (): Promise<Record<string, string>> => {
    if (fixture.name === 'sqlite') {
      const db = new Database(path.join(raw as string, 'outbox.db'));
      const rows = db.prepare('SELECT id, secrets FROM webhook_endpoints').all() as {
        id: string;
        secrets: string;
      }[];
      db.close();
      return Object.fromEntries(rows.map((r) => [r.id, r.secrets]));
    }
    const { pool, schema } = raw as { pool: pg.Pool; schema: string };
    const { rows } = await pool.query(
      `SELECT id, secrets::text AS secrets FROM "${schema}".webhook_endpoints`,
    );
    return Object.fromEntries(rows.map((r) => [r.id as string, r.secrets as string]));
  };
  const setSecrets = async (id: string, secrets: string) => {
    if (fixture.name === 'sqlite') {
      const db = new Database(path.join(raw as string, 'outbox.db'));
      db.prepare('UPDATE webhook_endpoints SET secrets = ? WHERE id = ?').run(secrets, id);
      db.close();
      return;
    }
    const { pool, schema } = raw as { pool: pg.Pool; schema: string };
    await pool.query(`UPDATE "${schema}".webhook_endpoints SET secrets = $1::jsonb WHERE id = $2`, [
      secrets,
      id,
    ]);
  };
  const deliverAll = async (outbox: Outbox) => {
    const worker = createWorker({ outbox, contract, urlPolicy: LOCAL });
    const summary = await worker.runOnce();
    await worker.stop();
    return summary;
  };
  const register = (outbox: Outbox) =>
    createEndpointManager({ outbox, contract, urlPolicy: LOCAL }).register({
      url: `${receiver.url}/h`,
      events: ['pet.adopted'],
    });
  const verifies = (secret: string, request: { body: string; headers: Record<string, string> }) => {
    try {
      new Webhook(secret).verify(request.body, request.headers);
      return true;
    } catch {
      return false;
    }
  };

  beforeEach(async () => {
    seen = [];
    if (fixture.skip) return;
    ({ cleanup, raw } = await fixture.create('secrets_at_rest'));
  });
  afterEach(async () => {
    if (fixture.skip) return;
    for (const outbox of opened.splice(0)) await outbox.close();
    await cleanup();
  });

  it.skipIf(fixture.skip)('stores ciphertext only, and the worker signs with the plaintext', async () => {
    const outbox = reopen([k1]);
    const { endpoint, secret } = await register(outbox);
    const inDb = () => stored().then((rows) => rows[endpoint.id] as string);
    expect(await inDb()).toContain('gwenc:v1:k1:');
    expect(await inDb()).not.toContain(secret.replace(/^whsec_/, ''));
    expect((await outbox.getEndpoint(endpoint.id))?.secrets.map((s) => s.secret)).toEqual([secret]);

    const sender = createSender(contract, { outbox });
    await sender.send('pet.adopted', { petId: 'p1', by: 'a' });
    expect(await deliverAll(outbox)).toMatchObject({ succeeded: 1 });
    expect(verifies(secret, seen[0]!)).toBe(true);

    // Rotation: the new secret is sealed too; both sign during the overlap.
    const manager = createEndpointManager({ outbox, contract, urlPolicy: LOCAL });
    const rotated = await manager.rotateSecret(endpoint.id, 60_000);
    expect(await inDb()).not.toContain(rotated.secret.replace(/^whsec_/, ''));
    expect(await inDb()).not.toContain(secret.replace(/^whsec_/, ''));
    await sender.send('pet.adopted', { petId: 'p2', by: 'a' });
    expect(await deliverAll(outbox)).toMatchObject({ succeeded: 1 });
    expect(seen[1]!.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(verifies(secret, seen[1]!) && verifies(rotated.secret, seen[1]!)).toBe(true);
  });

  it.skipIf(fixture.skip)(
    'keys rotate: opening with [k2, k1] re-encrypts under k2; k1 alone then cannot read',
    async () => {
      const first = reopen([k1]);
      const { endpoint, secret } = await register(first);
      await createSender(contract, { outbox: first }).send('pet.adopted', { petId: 'p1', by: 'a' });

      await reopen([k2, k1]).init();
      const row = (await stored())[endpoint.id] as string;
      expect(row).toContain('gwenc:v1:k2:');
      expect(row).not.toContain('gwenc:v1:k1:');

      const onlyK2 = reopen([k2]);
      expect((await onlyK2.getEndpoint(endpoint.id))?.secrets.map((s) => s.secret)).toEqual([secret]);
      expect(await deliverAll(onlyK2)).toMatchObject({ succeeded: 1 });
      expect(verifies(secret, seen[0]!)).toBe(true);

      expect(await codeOf(reopen([k1]).getEndpoint(endpoint.id))).toMatch(/^invalid_key: .*"k2"/);
      expect(await codeOf(reopen().getEndpoint(endpoint.id))).toMatch(/^invalid_key: .*secretKeys/);
    },
  );

  it.skipIf(fixture.skip)(
    'plaintext written before secretKeys is encrypted when an outbox with keys opens',
    async () => {
      const before = reopen();
      const { endpoint, secret } = await register(before);
      expect((await stored())[endpoint.id]).toContain(secret);
      const outbox = reopen([k1]);
      expect((await outbox.getEndpoint(endpoint.id))?.secrets.map((s) => s.secret)).toEqual([secret]);
      expect((await stored())[endpoint.id]).not.toContain(secret.replace(/^whsec_/, ''));
    },
  );

  it.skipIf(fixture.skip)(
    'an altered ciphertext, or one moved to another endpoint, does not decrypt',
    async () => {
      const outbox = reopen([k1]);
      const a = await register(outbox);
      const b = await register(outbox);
      const rows = await stored();
      await setSecrets(b.endpoint.id, rows[a.endpoint.id] as string);
      expect(await codeOf(reopen([k1]).getEndpoint(b.endpoint.id))).toMatch(/^invalid_key: .*altered/);
      const sealed = JSON.parse(rows[a.endpoint.id] as string) as Array<{ sealed: string }>;
      const text = sealed[0]!.sealed;
      const flipped = `${text.slice(0, -2)}${text.at(-2) === 'A' ? 'B' : 'A'}${text.at(-1)}`;
      await setSecrets(a.endpoint.id, JSON.stringify([{ ...sealed[0], sealed: flipped }]));
      expect(await codeOf(reopen([k1]).getEndpoint(a.endpoint.id))).toMatch(/^invalid_key/);
    },
  );
});

describe('secretKeys option', () => {
  it.each([
    ['no key', []],
    ['a 16-byte key', [{ id: 'k', key: randomBytes(16) }]],
    ['a bad id', [{ id: 'k 1', key: randomBytes(32) }]],
    [
      'a repeated id',
      [
        { id: 'k', key: randomBytes(32) },
        { id: 'k', key: randomBytes(32) },
      ],
    ],
  ])('refuses %s', (_name, secretKeys) => {
    expect(() => sqliteOutbox(':memory:', { secretKeys })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
  });
});
