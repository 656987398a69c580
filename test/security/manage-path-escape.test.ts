/**
 * Attack: a client sends a management API path with a malformed percent-escape
 * (`/webhooks/%E0%A4%A`, a lone `%`, an escape of half a UTF-8 sequence) so decoding the path throws:
 * a 500 that looks like a server fault, trips alerting, and answers with no useful error.
 *
 * Must hold: a path segment that does not decode is a 400 `invalid_argument` with the usual JSON
 * error body, on every route (the endpoint id and the action segment alike); any path at all is
 * answered below 500 (fast-check).
 */
import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Outbox } from '../../runtime/deliver/outbox.js';
import { sqliteOutbox } from '../../runtime/deliver/sqlite-outbox.js';
import { unsafeAllowAnyone } from '../../runtime/manage/authorize.js';
import { createManagementHandler } from '../../runtime/manage/handler.js';
import { LOCAL, petContract, tempDir } from '../sender/helpers.js';

const BAD_ESCAPES = ['%E0%A4%A', '%', '%ZZ', '%E0%A4', 'ep_%C0%AF', '%ED%A0%80', 'a%2', '%FF'];

const ROUTES: ReadonlyArray<readonly [string, (segment: string) => string]> = [
  ['GET', (s) => `/webhooks/${s}`],
  ['PATCH', (s) => `/webhooks/${s}`],
  ['DELETE', (s) => `/webhooks/${s}`],
  ['GET', (s) => `/webhooks/${s}/deliveries`],
  ['GET', (s) => `/webhooks/${s}/attempts`],
  ['POST', (s) => `/webhooks/${s}/enable`],
  ['POST', (s) => `/webhooks/${s}/verify`],
  ['POST', (s) => `/webhooks/${s}/rotate-secret`],
  ['POST', (s) => `/webhooks/${s}/redeliver`],
  ['POST', (s) => `/webhooks/ep_x/${s}`],
  ['GET', (s) => `/webhooks/ep_x/${s}`],
];

describe('management API path escapes', () => {
  let dir: string;
  let outbox: Outbox;
  let handler: (request: Request) => Promise<Response>;

  beforeAll(() => {
    dir = tempDir('manage-escape');
    outbox = sqliteOutbox(`${dir}/o.db`);
    handler = createManagementHandler({
      outbox,
      contract: petContract({ kind: 'list', delays: [0] }),
      urlPolicy: LOCAL,
      authorize: unsafeAllowAnyone(),
    });
  });
  afterAll(async () => {
    await outbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const call = (method: string, path: string) =>
    handler(
      new Request(`http://api.test${path}`, {
        method,
        ...(method === 'POST' || method === 'PATCH'
          ? { body: '{}', headers: { 'content-type': 'application/json' } }
          : {}),
      }),
    );

  for (const [method, path] of ROUTES) {
    it.each(BAD_ESCAPES)(`${method} ${path('{segment}')} with %s is a 400 JSON error`, async (segment) => {
      const response = await call(method, path(segment));
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('invalid_argument');
      expect(body.error.message).toMatch(/percent-escape/);
    });
  }

  it('a well-formed escape still decodes (an unknown id is a 404)', async () => {
    const response = await call('GET', '/webhooks/ep%5Fmissing');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({
      error: { code: 'not_found', details: { id: 'ep_missing' } },
    });
  });

  it('any path gets a status below 500 (property)', async () => {
    const piece = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.constantFrom('%', '%E0', '%A4', '%A', '%ZZ', '%2F', '%25', '/', 'ep_x', 'enable', 'rotate-secret'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE'),
        fc.array(piece, { maxLength: 8 }).map((parts) => parts.join('')),
        async (method, tail) => {
          let request: Request;
          try {
            request = new Request(`http://api.test/webhooks/${tail}`, {
              method,
              ...(method === 'POST' || method === 'PATCH' ? { body: '{}' } : {}),
            });
          } catch {
            return; // not a URL at all: no request reaches the handler
          }
          const response = await handler(request);
          expect(response.status).toBeLessThan(500);
          expect(response.headers.get('content-type') ?? '').toMatch(/^application\/json/);
        },
      ),
      { numRuns: 300 },
    );
  });
});
