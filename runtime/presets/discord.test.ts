import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clockAt, expectCode, tamper } from '../../test/presets/helpers.js';
import { ed25519PrivateKey, ed25519Sign, rawPublicKey } from '../signing/ed25519.js';
import { encodeHex } from '../signing/encoding.js';
import { DISCORD_INTERACTION_TYPES } from './discord.js';
import { providers } from './registry.js';

const { discord } = providers;

const seed = new Uint8Array(randomBytes(32));
const publicKey = encodeHex(rawPublicKey(ed25519PrivateKey(seed)));
const T = 1_732_000_000;
const body = JSON.stringify({
  id: '1234567890',
  type: 2,
  application_id: '42',
  token: 't',
  data: { name: 'ping' },
});

describe('discord preset', () => {
  const scheme = discord.scheme({ secret: publicKey, signingKey: encodeHex(seed), now: clockAt(T) });

  it('verifies an Ed25519 signature over timestamp + body with the hex public key', async () => {
    const headers = await scheme.sign({ id: 'x', timestamp: T, body });
    const expected = encodeHex(ed25519Sign(ed25519PrivateKey(seed), `${T}${body}`));
    expect(headers).toEqual({ 'X-Signature-Ed25519': expected, 'X-Signature-Timestamp': String(T) });
    expect(await scheme.verify({ headers, body })).toEqual({ timestamp: T });
    const verifyOnly = discord.scheme({
      secret: [encodeHex(new Uint8Array(32).fill(7)), publicKey],
      now: clockAt(T),
    });
    expect(await verifyOnly.verify({ headers, body: Buffer.from(body) })).toEqual({ timestamp: T });
  });

  it('answers every verification failure with 401, as Discord’s endpoint check requires', async () => {
    const headers = await scheme.sign({ id: 'x', timestamp: T, body });
    await expectCode(() => scheme.verify({ headers, body: tamper(body) }), 'invalid_signature', 401);
    const other = discord.scheme({
      secret: encodeHex(rawPublicKey(ed25519PrivateKey(new Uint8Array(32).fill(1)))),
      now: clockAt(T),
    });
    await expectCode(() => other.verify({ headers, body }), 'invalid_signature', 401);
    // Signature over another timestamp.
    await expectCode(
      () => scheme.verify({ headers: { ...headers, 'X-Signature-Timestamp': String(T + 1) }, body }),
      'invalid_signature',
      401,
    );
    await expectCode(() => scheme.verify({ headers: {}, body }), 'missing_header', 401);
    await expectCode(
      () => scheme.verify({ headers: { 'X-Signature-Ed25519': headers['X-Signature-Ed25519'] ?? '' }, body }),
      'missing_header',
      401,
    );
    for (const bad of ['zz', 'ab'.repeat(63), `${'ab'.repeat(64)}00`]) {
      await expectCode(
        () => scheme.verify({ headers: { ...headers, 'X-Signature-Ed25519': bad }, body }),
        'malformed_header',
        401,
      );
    }
    await expectCode(
      () => scheme.verify({ headers: { ...headers, 'X-Signature-Timestamp': 'now' }, body }),
      'malformed_header',
      401,
    );
    const stale = await scheme.sign({ id: 'x', timestamp: T - 600, body });
    await expectCode(() => scheme.verify({ headers: stale, body }), 'timestamp_too_old', 401);
  });

  it('rejects bad keys at construction and signing without a signing key', async () => {
    await expectCode(() => discord.scheme({ secret: 'abcd' }), 'invalid_key');
    await expectCode(() => discord.scheme({ secret: publicKey, signingKey: 'nothex' }), 'invalid_key');
    await expectCode(() => discord.scheme({ secret: [] }), 'invalid_secret');
    await expectCode(
      () => discord.scheme({ secret: publicKey }).sign({ id: 'x', timestamp: T, body }),
      'invalid_config',
    );
  });

  it('answers PING through the handshake and names interaction types', () => {
    expect(discord.handshake({}, { type: 1, id: '1', application_id: '42', token: 't', version: 1 })).toEqual(
      {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{"type":1}',
      },
    );
    // Webhook events: PING is type 0 and wants an empty 204.
    expect(discord.handshake({}, { version: 1, application_id: '42', type: 0 })).toEqual({
      status: 204,
      headers: {},
      body: '',
    });
    expect(discord.handshake({}, JSON.parse(body))).toBeUndefined();
    expect(discord.eventType({}, JSON.parse(body))).toBe('application_command');
    expect(discord.eventType({}, { type: 1, event: { type: 'APPLICATION_AUTHORIZED' } })).toBe(
      'APPLICATION_AUTHORIZED',
    );
    expect(discord.eventId({}, JSON.parse(body))).toBe('1234567890');
    expect(DISCORD_INTERACTION_TYPES.modal_submit).toBe(5);
  });

  it('selects webhook events by event.type and dedupes them on their content', () => {
    const event = {
      version: 1,
      application_id: '42',
      type: 1,
      event: {
        type: 'APPLICATION_AUTHORIZED',
        timestamp: '2026-11-30T11:00:00.000000+00:00',
        data: { scopes: ['bot'] },
      },
    };
    expect(discord.selector).toEqual({ kind: 'body', field: 'event.type' });
    expect(discord.match('APPLICATION_AUTHORIZED')).toEqual({ body: 'APPLICATION_AUTHORIZED' });
    expect(discord.match('application_command')).toBeUndefined();
    expect(discord.eventType({}, event)).toBe('APPLICATION_AUTHORIZED');
    const id = discord.eventId({}, event);
    expect(id).toMatch(/^discord-event:[0-9a-f]{64}$/);
    expect(discord.eventId({}, JSON.parse(JSON.stringify(event)))).toBe(id);
    expect(
      discord.eventId(
        {},
        { ...event, event: { ...event.event, timestamp: '2026-11-30T11:00:01.000000+00:00' } },
      ),
    ).not.toBe(id);
    expect(discord.handshake({}, event)).toBeUndefined();
    // Events are acknowledged with an empty 204 within 3 seconds.
    expect(discord.acknowledgement).toEqual({ status: 204, headers: {}, body: '' });
    expect(discord.defaultMode).toBe('ack-fast');
  });
});
