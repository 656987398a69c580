/**
 * Threat: an unsigned `hmac-token` handshake turns the receiver into a signing oracle.
 *
 * Attack: a contract declares `{ kind: hmac-token, signed: false }`. The receiver then answers,
 * before verification, `HMAC(secret, token)` for any token an anonymous caller sends — under the very
 * key it verifies deliveries with. A caller who picks the token picks what is MACed, so any body up to
 * the token limit can be "signed" by the receiver itself and sent back to it as a delivery.
 *
 * What must hold: the combination is refused wherever a contract is read — the generator's extension
 * parser (`invalid_extension`, with its JSON pointer; nothing written), and the runtime for a
 * hand-written contract or a generated receiver's parts (`invalid_config`) — and on a running
 * receiver an unauthenticated caller never obtains a MAC.
 */
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Contract, EventMapBase } from '../../runtime/contract.js';
import { WebhookError } from '../../runtime/errors.js';
import type { HandshakeConfig } from '../../runtime/handshake-config.js';
import { contractHandshakes } from '../../runtime/receive/contract-handshakes.js';
import { createReceiverWith } from '../../runtime/receive/create-receiver.js';
import { standardWebhooksParts } from '../../runtime/receive/parts-node.js';
import { createParser, createReceiver } from '../../runtime/receive/receiver-node.js';
import { memoryStore } from '../../runtime/stores/memory.js';
import { petstore, SECRET } from '../receiver/fixtures.js';
import { listen } from '../receiver/http.js';
import { repoRoot } from '../types/typecheck.js';

const tmpRoot = path.join(repoRoot, 'test/.tmp');
mkdirSync(tmpRoot, { recursive: true });
const dir = mkdtempSync(path.join(tmpRoot, 'security-hmac-token-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hmacToken = (signed?: boolean): HandshakeConfig => ({
  kind: 'hmac-token',
  ...(signed === undefined ? {} : { signed }),
  when: { body: { '/type': 'endpoint.url_validation' } },
  token: { body: '/data/plainToken' },
  algorithm: 'sha256',
  encoding: 'hex',
  respond: { tokenField: 'plainToken', hashField: 'encryptedToken' },
});

const withHandshakes = (handshakes: readonly HandshakeConfig[]): Contract<EventMapBase> =>
  ({ ...petstore, handshakes }) as Contract<EventMapBase>;

/** The `whsec_` secret's bytes (Standard Webhooks' key); the handshake MACs with the secret's text. */
const KEY = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
const macOf = (token: string, key: Buffer | string) => createHmac('sha256', key).update(token).digest('hex');

function refusal(build: () => unknown): WebhookError {
  try {
    build();
  } catch (error) {
    if (error instanceof WebhookError) return error;
    throw error;
  }
  throw new Error('expected invalid_config');
}

describe('an unsigned hmac-token handshake', () => {
  it('the generator CLI refuses it with invalid_extension and its pointer, and writes nothing', () => {
    const input = path.join(dir, 'contract');
    mkdirSync(input, { recursive: true });
    writeFileSync(
      path.join(input, 'oracle.openapi.yaml'),
      `openapi: 3.1.0
info: { title: Oracle, version: 1.0.0 }
x-gen-webhooks:
  handshakes:
    - kind: cloudevents
      allowedOrigins: '*'
    - kind: hmac-token
      signed: false
      token: { body: /plainToken }
      algorithm: sha256
      encoding: hex
      respond: { tokenField: plainToken, hashField: encryptedToken }
webhooks:
  ticket.opened:
    post:
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [type, timestamp, data]
              properties:
                type: { const: ticket.opened }
                timestamp: { type: string, format: date-time }
                data: { type: object }
      responses:
        '200': { description: ok }
`,
    );
    const out = path.join(dir, 'out');
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'generator/cli.ts', input, '--out', out], {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 120_000,
    });
    const output = run.stdout + run.stderr;
    expect(run.status, output).not.toBe(0);
    expect(output).toContain('invalid_extension');
    expect(output).toContain('/x-gen-webhooks/handshakes/1/signed');
    expect(output).toContain('oracle.openapi.yaml');
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  }, 130_000);

  it('the runtime refuses it in a hand-written contract (createReceiver, createParser)', () => {
    const contract = withHandshakes([hmacToken(false)]);
    for (const build of [
      () => createReceiver(contract, { secret: SECRET, store: memoryStore() }),
      () => createParser(contract, { secret: SECRET }),
    ]) {
      const e = refusal(build);
      expect(e.code).toBe('invalid_config');
      expect(e.message).toMatch(/hmac-token/);
      expect(e.details.pointer).toBe('/x-gen-webhooks/handshakes/0/signed');
    }
  });

  it('the runtime refuses it through a generated receiver’s parts too (no contract check there)', () => {
    const parts = { ...standardWebhooksParts, handshakes: contractHandshakes };
    const contract = withHandshakes([{ kind: 'cloudevents', allowedOrigins: '*' }, hmacToken(false)]);
    const e = refusal(() => createReceiverWith(contract, { secret: SECRET, store: memoryStore() }, parts));
    expect(e.code).toBe('invalid_config');
    expect(e.details.pointer).toBe('/x-gen-webhooks/handshakes/1/signed');
  });

  it('end to end: an unauthenticated caller gets no MAC from a receiver, signed or "unsigned"', async () => {
    const options = { secret: SECRET, store: memoryStore(), handlers: { 'pet.adopted': () => {} } };
    // The unsigned one is refused when it is built; were it built, it is asked like the other.
    let refused: unknown;
    const receivers = [createReceiver(withHandshakes([hmacToken()]), options)];
    try {
      receivers.push(createReceiver(withHandshakes([hmacToken(false)]), options));
    } catch (error) {
      refused = error;
    }
    // What the attacker wants MACed: a whole delivery's signed content.
    const token = `msg_forged.${Math.floor(Date.now() / 1000)}.{"type":"pet.adopted"}`;
    const body = JSON.stringify({ type: 'endpoint.url_validation', data: { plainToken: token } });
    for (const receiver of receivers) {
      const server = await listen(http.createServer(receiver.node()));
      try {
        const response = await fetch(`${server.url}/hooks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const text = await response.text();
        // Under the secret as given (the handshake's key) or as the scheme decodes it.
        expect(text).not.toContain(macOf(token, SECRET));
        expect(text).not.toContain(macOf(token, KEY));
        expect(text).not.toContain('encryptedToken');
        expect(response.status).toBe(400);
      } finally {
        await server.close();
      }
    }
    expect((refused as WebhookError | undefined)?.code).toBe('invalid_config');
  });
});
