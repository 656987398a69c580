/**
 * Twitch vectors built from https://dev.twitch.tv/docs/eventsub/handling-webhook-events/ ("Verifying
 * the event message": HMAC-SHA256 over message id + timestamp header + raw body, `sha256=` + hex;
 * timestamps older than 10 minutes are refused; "Responding to a challenge request": the challenge as
 * text/plain; "Revoking your subscription"). Expected values come from node:crypto here.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clockAt, expectCode, tamper } from '../../test/presets/helpers.js';
import { parseRfc3339Seconds, twitch } from './twitch.js';

const secret = 'this-is-a-subscription-secret';
const T = 1_732_000_000;
const stamp = '2024-11-19T07:06:40.123456789Z'; // T + 0.123456789 s, nanoseconds as Twitch sends them
const id = 'e76c6bd4-55c9-4987-8304-da1588d8988b';
const body = JSON.stringify({
  subscription: {
    id: 'f1c2a387-161a-49f9-a165-0f21d7a4e1c4',
    type: 'channel.follow',
    version: '2',
    status: 'enabled',
  },
  event: { user_id: '1234', broadcaster_user_id: '1337' },
});
const signature = (key: string, text: string) =>
  `sha256=${createHmac('sha256', key)
    .update(id + stamp + text)
    .digest('hex')}`;
const headers = {
  'Twitch-Eventsub-Message-Id': id,
  'Twitch-Eventsub-Message-Timestamp': stamp,
  'Twitch-Eventsub-Message-Signature': signature(secret, body),
  'Twitch-Eventsub-Message-Type': 'notification',
};

describe('twitch preset', () => {
  const scheme = twitch.scheme({ secret, now: clockAt(T) });

  it('verifies the documented HMAC and keys on the signed message id', async () => {
    expect(parseRfc3339Seconds(stamp, 'h')).toBe(T);
    expect(await scheme.verify({ headers, body })).toEqual({ id, timestamp: T });
    const parsed = twitch.parseBody(body, headers);
    expect(twitch.eventType(headers, parsed)).toBe('channel.follow');
    expect(twitch.eventId(headers, parsed, { id })).toBe(id);
    const signed = await scheme.sign({ id, timestamp: T, body });
    const at = signed['Twitch-Eventsub-Message-Timestamp'] ?? '';
    expect(signed['Twitch-Eventsub-Message-Signature']).toBe(
      `sha256=${createHmac('sha256', secret)
        .update(id + at + body)
        .digest('hex')}`,
    );
  });

  it('refuses tampering, a changed id, and messages older than 10 minutes', async () => {
    await expectCode(() => scheme.verify({ headers, body: tamper(body) }), 'invalid_signature');
    await expectCode(
      () => scheme.verify({ headers: { ...headers, 'Twitch-Eventsub-Message-Id': 'another' }, body }),
      'invalid_signature',
    );
    expect((await twitch.scheme({ secret, now: clockAt(T + 600) }).verify({ headers, body })).id).toBe(id);
    await expectCode(
      () => twitch.scheme({ secret, now: clockAt(T + 601) }).verify({ headers, body }),
      'timestamp_too_old',
    );
    await expectCode(
      () => twitch.scheme({ secret, now: clockAt(T + 301), tolerance: 300 }).verify({ headers, body }),
      'timestamp_too_old',
    );
    for (const bad of [
      '2024-11-19 07:06:40Z',
      '2024-02-30T00:00:00Z',
      '1732000000',
      '2024-11-19T25:00:00Z',
    ]) {
      await expectCode(
        () => scheme.verify({ headers: { ...headers, 'Twitch-Eventsub-Message-Timestamp': bad }, body }),
        'malformed_header',
      );
    }
    expect(parseRfc3339Seconds('2024-11-19T09:06:40+02:00', 'h')).toBe(T);
  });

  it('answers the challenge as text/plain and a revocation with 204 and the hook', async () => {
    const challenge = {
      challenge: 'pogchamp-kappa-360noscope-vohiyo',
      subscription: { type: 'channel.follow' },
    };
    const answer = await twitch.handshake(
      { 'Twitch-Eventsub-Message-Type': 'webhook_callback_verification' },
      challenge,
    );
    expect(answer).toMatchObject({ status: 200, body: 'pogchamp-kappa-360noscope-vohiyo' });
    expect(answer?.headers['content-type']).toMatch(/^text\/plain/);

    const revoked: unknown[] = [];
    const revocation = {
      subscription: { id: 's1', status: 'authorization_revoked', type: 'channel.follow' },
    };
    const ack = await twitch.handshake({ 'Twitch-Eventsub-Message-Type': 'revocation' }, revocation, {
      secret,
      onRevocation: (subscription) => void revoked.push(subscription),
    });
    expect(ack).toEqual({ status: 204, headers: {}, body: '' });
    expect(revoked).toEqual([revocation.subscription]);
    // The unsigned type header cannot turn a notification into a revocation.
    expect(
      await twitch.handshake({ 'Twitch-Eventsub-Message-Type': 'revocation' }, JSON.parse(body)),
    ).toBeUndefined();
    await expectCode(
      () =>
        twitch.handshake({ 'Twitch-Eventsub-Message-Type': 'revocation' }, revocation, {
          secret,
          onRevocation: () => {
            throw new Error('db down');
          },
        }),
      'handler_failed',
      500,
    );
  });
});
