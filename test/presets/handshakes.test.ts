/**
 * Provider handshakes through a real receiver: Slack's url_verification challenge and Discord's PING
 * are answered after verification; Discord's endpoint probe with a bad signature gets a 401.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { providerContract, providers } from '../../runtime/presets/index.js';
import { createReceiver } from '../../runtime/receive/index.js';
import { ed25519PrivateKey, rawPublicKey } from '../../runtime/signing/ed25519.js';
import { encodeHex } from '../../runtime/signing/encoding.js';
import { memoryStore } from '../../runtime/stores/index.js';

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

describe('slack url_verification through the receiver', () => {
  const secret = 'slack-handshake-secret';
  const receiver = createReceiver(
    providerContract('slack', { app_mention: z.object({ text: z.string() }) }),
    {
      secret,
      store: memoryStore(),
      handlers: { app_mention: () => undefined },
    },
  );

  it('echoes the challenge of a signed request and refuses an unsigned one', async () => {
    const url = await listen(receiver.node());
    const body = JSON.stringify({ token: 'x', challenge: 'c0ffee-challenge', type: 'url_verification' });
    const headers = await providers.slack
      .scheme({ secret })
      .sign({ id: 'x', timestamp: Math.floor(Date.now() / 1000), body });
    const ok = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ challenge: 'c0ffee-challenge' });
    const forged = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ error: { code: 'missing_header' } });
  });
});

describe('discord interactions endpoint check through the receiver', () => {
  const seed = new Uint8Array(randomBytes(32));
  const publicKey = encodeHex(rawPublicKey(ed25519PrivateKey(seed)));
  const receiver = createReceiver(
    providerContract('discord', { ENTITLEMENT_CREATE: z.object({ id: z.string() }) }),
    { secret: publicKey, store: memoryStore(), handlers: { ENTITLEMENT_CREATE: () => undefined } },
  );
  const signer = providers.discord.scheme({ secret: publicKey, signingKey: seed });

  it('answers a signed PING with {"type":1} and every bad signature with 401', async () => {
    const url = await listen(receiver.node());
    const body = JSON.stringify({ id: '1', application_id: '42', type: 1, token: 't', version: 1 });
    const headers = await signer.sign({ id: 'x', timestamp: Math.floor(Date.now() / 1000), body });
    const ping = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    expect(ping.status).toBe(200);
    expect(await ping.json()).toEqual({ type: 1 });

    // Webhook events' PING (type 0) wants an empty 204.
    const eventPing = JSON.stringify({ version: 1, application_id: '42', type: 0 });
    const eventHeaders = await signer.sign({
      id: 'x',
      timestamp: Math.floor(Date.now() / 1000),
      body: eventPing,
    });
    const pong = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...eventHeaders },
      body: eventPing,
    });
    expect(pong.status).toBe(204);
    expect(await pong.text()).toBe('');

    const flipped = `${(headers['X-Signature-Ed25519'] ?? '').slice(0, -1)}${headers['X-Signature-Ed25519']?.endsWith('0') ? '1' : '0'}`;
    const probes: Record<string, string>[] = [
      { ...headers, 'X-Signature-Ed25519': flipped },
      { ...headers, 'X-Signature-Ed25519': 'not-hex' },
      { 'X-Signature-Timestamp': headers['X-Signature-Timestamp'] ?? '' },
    ];
    for (const bad of probes) {
      const probe = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bad },
        body,
      });
      expect(probe.status).toBe(401);
      await probe.arrayBuffer();
    }
  });
});
