/**
 * Threat: Microsoft Graph's `validationToken` echo reflects anything an anonymous caller sends.
 *
 * Attack: the Graph preset answers `POST ?validationToken=…` before verification (Graph signs
 * nothing), with the decoded token as the body. Unbounded, any caller can make the endpoint serve
 * megabytes of text it chose, or markup and control characters (a reflected page, log or header
 * injection wherever the answer is shown) from the receiver's own origin.
 *
 * What must hold: the token is echoed (text/plain, nosniff) only when it passes the same check as a
 * contract's echo handshakes — 1–1024 printable ASCII characters (`CHALLENGE`, shared with
 * runtime/receive/contract-handshakes.ts) — and anything else is a 400 that echoes nothing.
 * Property: whatever token is sent, the answer is exactly that token (satisfying the check) or a 400.
 */
import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { microsoftGraph } from '../../runtime/presets/microsoft-graph.js';
import { providerContract } from '../../runtime/presets/provider-contract.js';
import { createReceiver } from '../../runtime/receive/receiver-node.js';
import { CHALLENGE } from '../../runtime/receive/verification-event.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { type Listening, listen } from '../receiver/http.js';

const clientState = 'secretClientValue';
const preflight = microsoftGraph.preflight!;
const ask = (token: string) =>
  preflight(
    {
      method: 'POST',
      url: `https://hooks.example/graph?validationToken=${encodeURIComponent(token)}`,
      headers: {},
      body: new Uint8Array(),
    },
    { secret: clientState },
  );

let server: Listening;
beforeAll(async () => {
  const receiver = createReceiver(
    providerContract('microsoft-graph', { created: z.object({}).passthrough() }),
    { secret: clientState, store: memoryStore(), ackFast: false },
  );
  server = await listen(http.createServer(receiver.node()));
});
afterAll(() => server?.close());

async function post(token: string) {
  const response = await fetch(`${server.url}/graph?validationToken=${encodeURIComponent(token)}`, {
    method: 'POST',
  });
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

describe('Microsoft Graph validationToken', () => {
  it('echoes a real Graph token as text/plain', async () => {
    const token = 'Validation: Testing client application reachability for subscription Request-Id: 25fb3ea2';
    const answer = await post(token);
    expect(answer).toMatchObject({ status: 200, body: token });
    expect(answer.type).toMatch(/^text\/plain/);
  });

  it.each([
    ['1025 characters', 'a'.repeat(1025)],
    ['a megabyte', 'x'.repeat(1 << 20)],
    ['markup with a line break', '<script>alert(1)</script>\r\nSet-Cookie: a=b'],
    ['a control character', 'abc\u0000def'],
    ['non-ASCII', 'jeton-é'],
    ['empty', ''],
  ])('refuses %s with 400 and echoes nothing', async (_, token) => {
    const direct = await ask(token);
    expect(direct?.status).toBe(400);
    expect(direct?.body).toBe('');
    // Over HTTP too (the megabyte one exceeds what a URL may carry: the server refuses it itself).
    if (token.length < 8000) {
      const answer = await post(token);
      expect(answer.status).toBe(400);
      if (token !== '') expect(answer.body).not.toContain(token);
    }
  });

  it('property: the answer is exactly the token satisfying the check, or a 400', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 1100 }),
          fc.string({ unit: 'binary', maxLength: 64 }),
          fc.string({ minLength: 1020, maxLength: 1030 }),
        ),
        async (token) => {
          const answer = await ask(token);
          if (CHALLENGE.test(token)) {
            expect(answer?.status).toBe(200);
            expect(answer?.body).toBe(token);
            expect(answer?.headers['content-type']).toMatch(/^text\/plain/);
            expect(answer?.headers['x-content-type-options']).toBe('nosniff');
          } else {
            expect(answer?.status).toBe(400);
            expect(answer?.body).toBe('');
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
