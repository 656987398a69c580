/**
 * Provider handshakes through a real receiver over real HTTP (127.0.0.1), with no handler code and a
 * store that records every call: each answer is the one the provider's documentation specifies
 * (computed here independently where it is a MAC), comes before verification of events (unsigned
 * handshakes) or right after it (signed ones), and never claims, completes or queues anything.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { PresetName, PresetOptions } from '../../runtime/presets/index.js';
import { providerContract, providers } from '../../runtime/presets/index.js';
import { createReceiver } from '../../runtime/receive/index.js';
import { ed25519PrivateKey, rawPublicKey } from '../../runtime/signing/ed25519.js';
import { encodeHex } from '../../runtime/signing/encoding.js';
import { memoryStore } from '../../runtime/stores/index.js';
import type { IdempotencyStore } from '../../runtime/stores/types.js';

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

/** A memory store that records every call the receiver makes on it. */
function recordingStore(): { store: IdempotencyStore<unknown>; calls: string[] } {
  const calls: string[] = [];
  const inner = memoryStore() as unknown as Record<string, unknown>;
  const store = new Proxy(inner, {
    get(target, property) {
      const value = target[property as string];
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as unknown as IdempotencyStore<unknown>;
  return { store, calls };
}

/**
 * A receiver for `preset` with no handler for any handshake, served over HTTP. A catch-all records
 * anything dispatched, so a handshake that leaked past the preset would show up there and as a claim.
 */
async function serve(preset: PresetName, secret: string | string[], options: PresetOptions = {}) {
  const { store, calls } = recordingStore();
  const dispatched: unknown[] = [];
  const receiver = createReceiver(providerContract(preset, {}), {
    secret,
    preset: options,
    store,
    ackFast: false,
    handlers: {},
    unknownEvent: (event: unknown) => void dispatched.push(event),
  } as never);
  // Each test ends with `calls` and `dispatched` empty: no claim, no handler.
  return { url: await listen(receiver.node()), calls, dispatched };
}

const now = () => Math.floor(Date.now() / 1000);

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

  it('claims nothing in the store', async () => {
    const { url, calls, dispatched } = await serve('slack', 'slack-secret-2');
    const body = JSON.stringify({ type: 'url_verification', challenge: 'abc' });
    const headers = await providers.slack
      .scheme({ secret: 'slack-secret-2' })
      .sign({ id: '-', timestamp: now(), body });
    const answer = await fetch(url, { method: 'POST', headers, body });
    expect(await answer.json()).toEqual({ challenge: 'abc' });
    expect(calls).toEqual([]);
    expect(dispatched).toEqual([]);
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

describe('zoom endpoint.url_validation', () => {
  it('answers a signed validation with the HMAC of plainToken, claiming nothing', async () => {
    const secret = 'zoom-secret-token';
    const { url, calls, dispatched } = await serve('zoom', secret);
    const body = JSON.stringify({
      payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' },
      event_ts: 1,
      event: 'endpoint.url_validation',
    });
    const ts = String(now());
    const signature = `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`;
    const answer = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-zm-signature': signature,
        'x-zm-request-timestamp': ts,
      },
      body,
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      plainToken: 'qgg8vlvZRS6UYooatFL8Aw',
      encryptedToken: createHmac('sha256', secret).update('qgg8vlvZRS6UYooatFL8Aw').digest('hex'),
    });
    const unsigned = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(unsigned.status).toBe(400);
    await unsigned.arrayBuffer();
    expect(calls).toEqual([]);
    expect(dispatched).toEqual([]);
  });
});

describe('twitch webhook_callback_verification and revocation', () => {
  it('echoes the challenge as text/plain and acknowledges a revocation through the hook', async () => {
    const secret = 'twitch-subscription-secret';
    const revoked: unknown[] = [];
    const { url, calls, dispatched } = await serve('twitch', secret, {
      onRevocation: (s) => void revoked.push(s),
    });
    const send = (type: string, body: string) => {
      const id = `msg-${type}`;
      const stamp = new Date().toISOString();
      const signature = `sha256=${createHmac('sha256', secret)
        .update(id + stamp + body)
        .digest('hex')}`;
      return fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'Twitch-Eventsub-Message-Id': id,
          'Twitch-Eventsub-Message-Timestamp': stamp,
          'Twitch-Eventsub-Message-Signature': signature,
          'Twitch-Eventsub-Message-Type': type,
        },
        body,
      });
    };
    const challenge = await send(
      'webhook_callback_verification',
      JSON.stringify({
        challenge: 'pogchamp-kappa-360noscope-vohiyo',
        subscription: { type: 'channel.follow', status: 'webhook_callback_verification_pending' },
      }),
    );
    expect(challenge.status).toBe(200);
    expect(challenge.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await challenge.text()).toBe('pogchamp-kappa-360noscope-vohiyo');

    const subscription = { id: 'f1c2a387', status: 'authorization_revoked', type: 'channel.follow' };
    const revocation = await send('revocation', JSON.stringify({ subscription }));
    expect(revocation.status).toBe(204);
    expect(revoked).toEqual([subscription]);
    expect(calls).toEqual([]);
    expect(dispatched).toEqual([]);
  });
});

describe('microsoft graph validationToken', () => {
  it('echoes the token as text/plain before any verification (the request carries no clientState)', async () => {
    const { url, calls, dispatched } = await serve('microsoft-graph', 'secretClientValue');
    const token = 'Validation: Testing client application reachability for subscription Request-Id: 25fb3ea2';
    const answer = await fetch(`${url}?validationToken=${encodeURIComponent(token)}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await answer.text()).toBe(token);
    // Without the token, the same empty request is a notification and fails verification.
    const notification = await fetch(url, { method: 'POST' });
    expect(notification.status).toBe(400);
    await notification.arrayBuffer();
    expect(calls).toEqual([]);
    expect(dispatched).toEqual([]);
  });

  it('hands lifecycle notifications to onLifecycle (202) after checking clientState', async () => {
    const seen: unknown[] = [];
    const { url, calls, dispatched } = await serve('microsoft-graph', 'secretClientValue', {
      onLifecycle: (items) => void seen.push(...items),
    });
    const lifecycle = {
      subscriptionId: 's1',
      lifecycleEvent: 'reauthorizationRequired',
      clientState: 'secretClientValue',
    };
    const answer = await fetch(url, { method: 'POST', body: JSON.stringify({ value: [lifecycle] }) });
    expect(answer.status).toBe(202);
    expect(seen).toEqual([lifecycle]);
    const forged = await fetch(url, {
      method: 'POST',
      body: JSON.stringify({ value: [{ ...lifecycle, clientState: 'x' }] }),
    });
    expect(forged.status).toBe(401);
    await forged.arrayBuffer();
    expect(seen).toHaveLength(1);
    expect(calls).toEqual([]);
    expect(dispatched).toEqual([]);
  });
});

describe('azure event grid validation handshakes', () => {
  it('answers SubscriptionValidationEvent and the CloudEvents OPTIONS, behind the endpoint secret', async () => {
    const secret = 'eg-endpoint-secret';
    const { url, calls, dispatched } = await serve('azure-event-grid', secret);
    const validation = JSON.stringify([
      {
        id: '2d1781af',
        topic: '/subscriptions/s1',
        subject: '',
        data: { validationCode: '512d38b6-c7b8-40c8-89fe-f46f9e9622b6' },
        eventType: 'Microsoft.EventGrid.SubscriptionValidationEvent',
        eventTime: '2018-01-25T22:12:19.4556811Z',
        metadataVersion: '1',
        dataVersion: '1',
      },
    ]);
    const answer = await fetch(`${url}?code=${secret}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'aeg-event-type': 'SubscriptionValidation' },
      body: validation,
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ validationResponse: '512d38b6-c7b8-40c8-89fe-f46f9e9622b6' });
    const withoutSecret = await fetch(url, { method: 'POST', body: validation });
    expect(withoutSecret.status).toBe(401);
    await withoutSecret.arrayBuffer();

    const options = await fetch(`${url}?code=${secret}`, {
      method: 'OPTIONS',
      headers: { 'WebHook-Request-Origin': 'eventgrid.azure.net' },
    });
    expect(options.status).toBe(200);
    expect(options.headers.get('webhook-allowed-origin')).toBe('eventgrid.azure.net');
    expect(options.headers.get('webhook-allowed-rate')).toBe('*');
    await options.arrayBuffer();
    const stranger = await fetch(`${url}?code=${secret}`, {
      method: 'OPTIONS',
      headers: { 'WebHook-Request-Origin': 'evil.example.com' },
    });
    expect(stranger.status).toBe(403);
    await stranger.arrayBuffer();
    expect(calls).toEqual([]);
    expect(dispatched).toEqual([]);
  });
});

describe('meta hub.challenge', () => {
  it('answers the verification GET with the right token only', async () => {
    const { url, calls, dispatched } = await serve('meta', 'app-secret', { verifyToken: 'meatyhamhock' });
    const query = (token: string) =>
      `${url}?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1158201444`;
    const ok = await fetch(query('meatyhamhock'));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('1158201444');
    const wrong = await fetch(query('guess'));
    expect(wrong.status).toBe(403);
    await wrong.arrayBuffer();
    expect(calls).toEqual([]);
    expect(dispatched).toEqual([]);
  });
});

describe('okta one-time verification', () => {
  it('answers the GET with { verification } when the shared secret is present', async () => {
    const { url, calls, dispatched } = await serve('okta', 'my-shared-secret');
    const challenge = 'Me_rShK8JHsTnbyYrWXCEoMGbM_zsZ6k0hLPZ_Pg';
    const ok = await fetch(url, {
      headers: { 'X-Okta-Verification-Challenge': challenge, Authorization: 'my-shared-secret' },
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ verification: challenge });
    const anonymous = await fetch(url, { headers: { 'X-Okta-Verification-Challenge': challenge } });
    expect(anonymous.status).toBe(401);
    await anonymous.arrayBuffer();
    expect(calls).toEqual([]);
    expect(dispatched).toEqual([]);
  });
});
