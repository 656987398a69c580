/**
 * Okta event hooks, following https://developer.okta.com/docs/concepts/event-hooks/ (the one-time
 * verification GET with X-Okta-Verification-Challenge answered with { verification }; every request
 * carries the configured authentication header; deliveries batch events in data.events).
 */
import { describe, expect, it } from 'vitest';
import { expectCode } from '../../test/presets/helpers.js';
import { okta } from './okta.js';

const secret = 'my-shared-secret';
const event = (uuid: string, eventType = 'user.lifecycle.create') => ({
  uuid,
  published: '2024-11-19T07:06:40.000Z',
  eventType,
  version: '0',
  displayMessage: 'Create Okta user',
  severity: 'INFO',
});
const delivery = (...events: object[]) =>
  JSON.stringify({
    eventType: 'com.okta.event_hook',
    eventTypeVersion: '1.0',
    cloudEventsVersion: '0.1',
    source: 'https://example.okta.com/api/v1/eventHooks/who8vt36qfNpCGz9H1e6',
    eventId: 'b5a188b9-5ece-4636-b041-482ffda96311',
    data: { events },
    eventTime: '2024-11-19T07:06:40.000Z',
    contentType: 'application/json',
  });

describe('okta preset', () => {
  const scheme = okta.scheme({ secret });

  it('checks the shared secret header and keys on the event uuid', async () => {
    const body = delivery(event('2ba9a3d0-3f2b-11ef-b2f6-0123456789ab'));
    expect(await scheme.verify({ headers: { authorization: secret }, body })).toEqual({
      id: '2ba9a3d0-3f2b-11ef-b2f6-0123456789ab',
    });
    await expectCode(
      () => scheme.verify({ headers: { authorization: 'guess' }, body }),
      'invalid_signature',
      401,
    );
    await expectCode(() => scheme.verify({ headers: {}, body }), 'missing_header', 401);
    await okta.scheme({ secret, authHeader: 'x-any-key' }).verify({ headers: { 'x-any-key': secret }, body });
    expect(okta.eventType({}, okta.parseBody(body, {}))).toBe('user.lifecycle.create');
    expect(
      okta.eventType({}, okta.parseBody(delivery(event('a'), event('b', 'user.session.start')), {})),
    ).toBe('batch');
  });

  it('answers the verification GET with the challenge, only with the secret', async () => {
    const preflight = okta.preflight;
    if (preflight === undefined) throw new Error('okta has a preflight');
    const request = (headers: Record<string, string>) => ({
      method: 'GET',
      url: 'https://example.com/okta',
      headers,
      body: new Uint8Array(),
    });
    const challenge = 'Me_rShK8JHsTnbyYrWXCEoMGbM_zsZ6k0hLPZ_Pg';
    const answer = await preflight(
      request({ 'X-Okta-Verification-Challenge': challenge, Authorization: secret }),
      { secret },
    );
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer?.body ?? '')).toEqual({ verification: challenge });
    await expectCode(
      () => preflight(request({ 'X-Okta-Verification-Challenge': challenge }), { secret }),
      'missing_header',
      401,
    );
    expect(await preflight(request({ Authorization: secret }), { secret })).toBeUndefined();
  });
});
