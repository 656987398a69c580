/**
 * A contract whose Fern dialect declares an asymmetric (Ed25519) signature, end to end: the
 * generated receiver requires the sender's public key, accepts deliveries node:crypto signed and
 * refuses tampered ones (fast-check); the generated sender signs with the private key so that
 * node:crypto verifies what reaches a real HTTP server.
 */
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from '../generator/generate.js';
import { WebhookError } from '../runtime/errors.js';
import { memoryStore } from '../runtime/stores/memory.js';
import { LOCAL, readBody, startServer, type TestServer } from './sender/helpers.js';
import { repoRoot } from './types/typecheck.js';

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'asymmetric-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const publicPem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
const privatePem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

interface Module {
  createReceiver(options: Record<string, unknown>): {
    handle(request: { headers: Record<string, string>; body: string }): Promise<{ status: number }>;
  };
  createSender(options: Record<string, unknown>): {
    sendNow(
      type: string,
      data: unknown,
      options: { url: string; secret: string },
    ): Promise<{ delivered: boolean }>;
  };
}

function nodeSigned(body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  const signature = sign(null, Buffer.from(`${timestamp}.${body}`), privateKey).toString('base64');
  return {
    'content-type': 'application/json',
    'x-invoice-signature': signature,
    'x-invoice-timestamp': String(timestamp),
  };
}

describe('Fern asymmetric signature, generated code', () => {
  let mod: Module;
  let server: TestServer;
  const seen: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  beforeAll(async () => {
    const out = path.join(dir, 'out');
    await generate({ inputs: ['test/golden/specs/keys.openapi31.yaml'], out, cwd: repoRoot });
    mod = (await import(pathToFileURL(path.join(out, 'keys-openapi31', 'index.ts')).href)) as Module;
    server = await startServer(async (req, res) => {
      seen.push({ headers: req.headers, body: (await readBody(req)).toString('utf8') });
      res.writeHead(200).end();
    });
  }, 120_000);
  afterAll(() => server?.close());

  it('refuses to build a receiver without the public key, or with a malformed one (typed errors)', () => {
    const build = (options: Record<string, unknown>) => {
      try {
        mod.createReceiver({ store: memoryStore(), handlers: {}, ...options });
      } catch (error) {
        return error instanceof WebhookError ? `${error.code}: ${error.message}` : String(error);
      }
      return 'built';
    };
    expect(build({ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })).toMatch(
      /^invalid_config: createReceiver needs the `publicKey` of "keys-openapi31"/,
    );
    expect(build({ publicKey: 'definitely not a key' })).toMatch(/^invalid_key: The ed25519 public key/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    expect(build({ publicKey: rsa.export({ format: 'pem', type: 'spki' }).toString() })).toMatch(
      /^invalid_key: .*is not an Ed25519 key/,
    );
    expect(build({ publicKey: publicPem })).toBe('built');
  });

  it('accepts node:crypto-signed deliveries and refuses tampered ones (property)', async () => {
    const handled: unknown[] = [];
    const receiver = mod.createReceiver({
      publicKey: publicPem,
      store: memoryStore(),
      handlers: {
        'invoice.paid': (event: { data: unknown }) => void handled.push(event.data),
        'invoice.voided': (event: { data: unknown }) => void handled.push(event.data),
      },
    });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.string({ minLength: 1, maxLength: 8 }),
        async (amount, junk) => {
          const data = { type: 'invoice.paid', invoiceId: `inv_${++n}`, amount };
          const body = JSON.stringify(data);
          const headers = nodeSigned(body);
          // Tampered: another amount under the same signature, a moved timestamp, an appended byte.
          const forged = JSON.stringify({ ...data, amount: amount + 1 });
          expect((await receiver.handle({ headers, body: forged })).status).toBe(401);
          const moved = {
            ...headers,
            'x-invoice-timestamp': String(Number(headers['x-invoice-timestamp']) - 1),
          };
          expect((await receiver.handle({ headers: moved, body })).status).toBe(401);
          expect((await receiver.handle({ headers, body: body + junk })).status).toBeGreaterThanOrEqual(400);
          expect(handled).not.toContainEqual({ ...data, amount: amount + 1 });
          expect((await receiver.handle({ headers, body })).status).toBe(200);
          expect(handled.at(-1)).toEqual(data);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('the sender signs with the private key; node:crypto and the generated receiver verify it', async () => {
    seen.length = 0;
    const sender = mod.createSender({ urlPolicy: LOCAL, sleep: async () => undefined });
    const data = { type: 'invoice.voided', invoiceId: 'inv_9' };
    const result = await sender.sendNow('invoice.voided', data, {
      url: `${server.url}/hook`,
      secret: privatePem,
    });
    expect(result.delivered).toBe(true);
    const [request] = seen;
    const headers = request?.headers as Record<string, string>;
    const signature = Buffer.from(headers['x-invoice-signature'] as string, 'base64');
    const signed = Buffer.from(`${headers['x-invoice-timestamp']}.${request?.body}`);
    expect(verify(null, signed, publicKey, signature)).toBe(true);
    const handled: unknown[] = [];
    const receiver = mod.createReceiver({
      publicKey: publicPem,
      store: memoryStore(),
      handlers: { 'invoice.voided': (event: { data: unknown }) => void handled.push(event.data) },
    });
    expect((await receiver.handle({ headers, body: request?.body as string })).status).toBe(200);
    expect(handled).toEqual([data]);
  });
});
