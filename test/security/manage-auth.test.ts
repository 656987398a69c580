/**
 * Attack: an anonymous client, or one with a bad token, calls the endpoint management API to list
 * endpoints, register one subscribed to `*` (reading all traffic), rotate a secret and read the new
 * one, delete an endpoint or replay deliveries — against a handler whose author forgot (or broke)
 * authentication.
 *
 * Must hold: a handler cannot be built without `authorize` (the error names the one opt-out,
 * `unsafeAllowAnyone`); over real HTTP every route answers an unauthenticated caller 401 before
 * reading its body and changes nothing; an `authorize` that names no tenant (the old `true`) lets
 * nothing through; a throwing `authorize` lets nothing through either.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { WebhookError } from '../../runtime/errors.js';
import { unsafeAllowAnyone } from '../../runtime/manage/authorize.js';
import { createManagementHandler, type ManagementHandlerOptions } from '../../runtime/manage/handler.js';
import { LOCAL, petContract, startWebServer, type TestServer, tempDir } from '../sender/helpers.js';

const contract = petContract({ kind: 'list', delays: [0] });

describe('management API fails closed', () => {
  let dir: string;
  let outbox: Outbox;
  let api: TestServer;
  let endpointId: string;
  let secret: string;

  beforeAll(async () => {
    dir = tempDir('manage-auth');
    outbox = sqliteOutbox(`${dir}/o.db`);
    const handler = createManagementHandler({
      outbox,
      contract,
      urlPolicy: LOCAL,
      authorize: (request) => {
        const auth = request.headers.get('authorization');
        if (auth === 'Bearer admin') return { tenant: 'acme' };
        if (auth === 'Bearer legacy') return true as unknown as null; // pre-tenant `authorize` answered true
        if (auth === 'Bearer crash') throw new Error('token service down');
        if (auth === 'Bearer expired') throw new WebhookError('invalid_signature', 'token expired');
        return null;
      },
    });
    api = await startWebServer(handler);
    const created = await fetch(`${api.url}/webhooks`, {
      method: 'POST',
      headers: { authorization: 'Bearer admin', 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['pet.adopted'] }),
    });
    expect(created.status).toBe(201);
    ({ id: endpointId, secret } = (await created.json()) as { id: string; secret: string });
  });
  afterAll(async () => {
    await api.close();
    await outbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('cannot be built without authorize; the error names the opt-out', () => {
    const options = { outbox, contract } as unknown as ManagementHandlerOptions;
    expect(() => createManagementHandler(options)).toThrow(/authorize.*required.*unsafeAllowAnyone\(\)/s);
    expect(() => createManagementHandler({ ...options, authorize: undefined as never })).toThrow(
      expect.objectContaining({ code: 'invalid_config' }),
    );
    // The opt-out exists and is the only way to run without credentials.
    expect(() => createManagementHandler({ ...options, authorize: unsafeAllowAnyone() })).not.toThrow();
  });

  it('answers every route 401 (or the thrown error) to a caller it does not know, and changes nothing', async () => {
    const before = await outbox.getEndpoint(endpointId);
    const routes: Array<[string, string, unknown?]> = [
      ['GET', '/webhooks'],
      ['POST', '/webhooks', { url: 'http://127.0.0.1:9/steal', events: ['*'] }],
      ['GET', `/webhooks/${endpointId}`],
      ['PATCH', `/webhooks/${endpointId}`, { url: 'http://127.0.0.1:9/steal' }],
      ['DELETE', `/webhooks/${endpointId}`],
      ['POST', `/webhooks/${endpointId}/rotate-secret`, { overlapSeconds: 0 }],
      ['POST', `/webhooks/${endpointId}/enable`],
      ['GET', `/webhooks/${endpointId}/deliveries`],
      ['POST', `/webhooks/${endpointId}/redeliver`, { from: 0 }],
    ];
    const callers: Array<[string | undefined, number]> = [
      [undefined, 401],
      ['Bearer wrong', 401],
      ['Bearer legacy', 500],
      ['Bearer crash', 500],
      ['Bearer expired', 401],
    ];
    for (const [auth, expected] of callers) {
      for (const [method, path, body] of routes) {
        const response = await fetch(`${api.url}${path}`, {
          method,
          headers: {
            ...(auth ? { authorization: auth } : {}),
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        const text = await response.text();
        expect({ auth, method, path, status: response.status }).toEqual({
          auth,
          method,
          path,
          status: expected,
        });
        expect(text).not.toContain(secret);
        expect(text).not.toContain(endpointId);
        expect(text).not.toContain('token service down');
      }
    }
    expect(await outbox.listEndpoints()).toEqual([before]);
  });
});
