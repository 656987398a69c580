/**
 * Attack: a customer registers (or PATCHes to) `https://x.internal/`, `https://db.corp/`, … through
 * the management API or the portal and reads the refusal: `Refusing to call x.internal (10.0.0.5):
 * private address` maps the operator's internal DNS one name at a time, and the difference between
 * "does not resolve" and "resolves to something internal" tells which names exist. The same through
 * delivery attempts: an endpoint whose name is later pointed inward shows the address in its attempt
 * errors.
 *
 * Must hold: no caller-visible part of a refusal (code, status, message, details — from the manager,
 * over HTTP, in stored attempts and dead letters) names the resolved address; a name that resolves to
 * a blocked address and one that does not resolve give the identical answer; the operator's logger
 * still gets the address (at warn). A literal IP URL is refused with the same message shape.
 */
import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { createSender } from '../../runtime/deliver/sender.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import type { LookupFunction } from '../../runtime/deliver/url-policy.js';
import { createWorker } from '../../runtime/deliver/worker.js';
import { isWebhookError } from '../../runtime/errors.js';
import { unsafeAllowAnyone } from '../../runtime/manage/authorize.js';
import { createEndpointManager } from '../../runtime/manage/endpoints.js';
import { createManagementHandler } from '../../runtime/manage/handler.js';
import { petContract, startWebServer, tempDir } from '../sender/helpers.js';

const INTERNAL = '10.0.0.5';
const PUBLIC = '93.184.216.34';

/** A resolver over a table that the test rewrites; a missing name is ENOTFOUND, like getaddrinfo. */
function fakeDns(table: Record<string, string[]>): LookupFunction {
  return async (host) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

interface Warn {
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

function recordingLogger() {
  const warns: Warn[] = [];
  const logger = {
    info() {},
    warn(fields: Record<string, unknown>, message: string) {
      warns.push({ fields, message });
    },
    error() {},
  };
  return { logger, warns };
}

/** What the caller of the manager sees of a refusal. */
async function refusalOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isWebhookError(error)) throw new Error(`expected a WebhookError, got ${String(error)}`);
  return { code: error.code, status: error.status, message: error.message, details: error.details };
}

describe('registration refusals are no DNS oracle', () => {
  let dir: string;
  let outbox: Outbox;
  const contract = petContract();

  beforeEach(() => {
    dir = tempDir('dns-oracle');
    outbox = sqliteOutbox(`${dir}/o.db`);
  });
  afterEach(async () => {
    await outbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the manager: no address in the refusal, the same answer as an unresolvable name, the address logged', async () => {
    const resolving = recordingLogger();
    const manager = createEndpointManager({
      outbox,
      contract,
      urlPolicy: { lookup: fakeDns({ 'x.internal': [INTERNAL], 'ok.example': [PUBLIC] }) },
      logger: resolving.logger,
    });
    const unresolving = createEndpointManager({
      outbox,
      contract,
      urlPolicy: { lookup: fakeDns({}) },
      logger: recordingLogger().logger,
    });
    const input = { url: 'https://x.internal/', events: ['pet.adopted'] };

    const blocked = await refusalOf(manager.register(input));
    expect(JSON.stringify(blocked)).not.toContain(INTERNAL);
    expect(blocked.status).toBeLessThan(500);
    expect(blocked.message).toBe('Refusing to call x.internal: not a public address');
    expect(await refusalOf(unresolving.register(input))).toEqual(blocked);

    // A PATCH to the internal name: the same answer.
    const { endpoint } = await manager.register({ url: 'https://ok.example/', events: ['pet.adopted'] });
    expect(await refusalOf(manager.update(endpoint.id, { url: 'https://x.internal/' }))).toEqual(blocked);

    // The operator's logger has what the caller does not.
    const logged = resolving.warns.map((w) => JSON.stringify(w));
    expect(logged.length).toBeGreaterThanOrEqual(2);
    expect(logged.every((line) => line.includes(INTERNAL) && line.includes('x.internal'))).toBe(true);
  });

  it('verify and enable: an internal and an unresolvable name give the same refusal', async () => {
    // With resolution at registration off, the first lookup happens at the verification challenge.
    const table: Record<string, string[]> = {};
    const manager = createEndpointManager({
      outbox,
      contract,
      verification: 'event',
      resolveOnRegister: false,
      urlPolicy: { lookup: fakeDns(table) },
      logger: recordingLogger().logger,
    });
    const input = { url: 'https://x.internal/', events: ['pet.adopted'] };
    const registered = await manager.register(input).catch((e: unknown) => e);
    if (!isWebhookError(registered)) throw new Error('expected the unresolvable name to be refused');
    const unresolvable = await refusalOf(manager.register(input));
    table['x.internal'] = [INTERNAL];
    const internal = await refusalOf(manager.register(input));
    expect(JSON.stringify(internal)).not.toContain(INTERNAL);
    expect(internal).toEqual(unresolvable);
    expect(internal.message).toBe('Refusing to call x.internal: not a public address');
  });

  it('a literal IP is refused with the same message shape (the caller typed the address)', async () => {
    const manager = createEndpointManager({ outbox, contract, logger: recordingLogger().logger });
    const literal = await refusalOf(
      manager.register({ url: `https://${INTERNAL}/`, events: ['pet.adopted'] }),
    );
    expect(literal).toMatchObject({
      code: 'blocked_address',
      status: 400,
      message: `Refusing to call ${INTERNAL}: not a public address`,
    });
  });

  it('the management HTTP API: identical bodies for an internal and an unresolvable name, no address', async () => {
    const serve = async (table: Record<string, string[]>) => {
      const { logger, warns } = recordingLogger();
      const api = await startWebServer(
        createManagementHandler({
          outbox,
          contract,
          urlPolicy: { lookup: fakeDns(table) },
          authorize: unsafeAllowAnyone(),
          logger,
        }),
      );
      const post = await fetch(`${api.url}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://x.internal/hook', events: ['pet.adopted'] }),
      });
      const answer = { status: post.status, body: await post.text() };
      await api.close();
      return { answer, warns };
    };
    const internal = await serve({ 'x.internal': [INTERNAL] });
    const mixed = await serve({ 'x.internal': [PUBLIC, INTERNAL] });
    const missing = await serve({});
    expect(internal.answer.status).toBe(400);
    expect(internal.answer.body).not.toContain(INTERNAL);
    expect(JSON.parse(internal.answer.body)).toMatchObject({
      error: { code: 'blocked_address', message: 'Refusing to call x.internal: not a public address' },
    });
    expect(mixed.answer).toEqual(internal.answer);
    expect(missing.answer).toEqual(internal.answer);
    expect(JSON.stringify(internal.warns)).toContain(INTERNAL);
  });

  it('a name later pointed inward: attempts and dead letters the customer reads do not name the address', async () => {
    const table: Record<string, string[]> = { 'hooks.example': [PUBLIC] };
    const urlPolicy = { lookup: fakeDns(table) };
    const handler = createManagementHandler({ outbox, contract, urlPolicy, authorize: unsafeAllowAnyone() });
    const created = await handler(
      new Request('http://api.test/webhooks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://hooks.example/in', events: ['pet.adopted'] }),
      }),
    );
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    table['hooks.example'] = [INTERNAL]; // rebound after registration
    await createSender(contract, { outbox }).send('pet.adopted', { petId: 'p', by: 'q' });
    const worker = createWorker({ outbox, contract, urlPolicy });
    expect(await worker.runOnce()).toMatchObject({ attempted: 1, dead: 1 });
    await worker.stop();

    const [attempt] = await outbox.listAttempts({ endpointId: id });
    expect(attempt).toMatchObject({ errorCode: 'blocked_address', outcome: 'failed' });
    expect(attempt?.error).toContain('not a public address');
    const seen = await Promise.all(
      [`/webhooks/${id}/deliveries`, `/webhooks/dead-letters?endpoint=${id}`].map(async (path) =>
        (await handler(new Request(`http://api.test${path}`))).text(),
      ),
    );
    for (const body of seen) {
      expect(body).toContain('blocked_address');
      expect(body).not.toContain(INTERNAL);
    }
  });
});
