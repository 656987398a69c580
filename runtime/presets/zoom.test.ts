/**
 * Zoom vectors built from https://developers.zoom.us/docs/api/webhooks/ ("Verify webhook events":
 * message = `v0:${x-zm-request-timestamp}:${body}`, signature = `v0=` + hex HMAC-SHA256 with the
 * Secret Token; "Validate your webhook endpoint": encryptedToken = hex HMAC-SHA256 of plainToken).
 * Expected values are computed here with node:crypto, independently of the preset.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clockAt, expectCode, tamper } from '../../test/presets/helpers.js';
import { zoom } from './zoom.js';

const secret = 'Kz9x2qYc3ZbT1nVwPqRs4A';
const T = 1_732_000_000;
const body = JSON.stringify({
  event: 'meeting.started',
  event_ts: 1_732_000_000_123,
  payload: { account_id: 'AAAA', object: { id: '8301234567', topic: 'Standup' } },
});
const docSignature = (key: string, ts: number, text: string) =>
  `v0=${createHmac('sha256', key).update(`v0:${ts}:${text}`).digest('hex')}`;

describe('zoom preset', () => {
  const scheme = zoom.scheme({ secret, now: clockAt(T) });
  const headers = { 'x-zm-signature': docSignature(secret, T, body), 'x-zm-request-timestamp': String(T) };

  it('verifies what the documented algorithm produces, and signs the same', async () => {
    const verified = await scheme.verify({ headers, body });
    expect(verified.timestamp).toBe(T);
    expect(verified.id).toBe(`zoom-event:${createHash('sha256').update(body).digest('hex')}`);
    expect(await scheme.sign({ id: '-', timestamp: T, body })).toEqual(headers);
    expect(zoom.eventId(headers, zoom.parseBody(body, headers), verified)).toBe(verified.id);
    expect(zoom.eventType(headers, zoom.parseBody(body, headers))).toBe('meeting.started');
  });

  it('rejects tampering, other secrets, the window edges and non-canonical spellings', async () => {
    await expectCode(() => scheme.verify({ headers, body: tamper(body) }), 'invalid_signature');
    await expectCode(
      () => zoom.scheme({ secret: 'other', now: clockAt(T) }).verify({ headers, body }),
      'invalid_signature',
    );
    await expectCode(
      () => zoom.scheme({ secret, now: clockAt(T + 301) }).verify({ headers, body }),
      'timestamp_too_old',
    );
    await expectCode(
      () => zoom.scheme({ secret, now: clockAt(T - 301) }).verify({ headers, body }),
      'timestamp_too_new',
    );
    expect(await zoom.scheme({ secret, now: clockAt(T + 300) }).verify({ headers, body })).toMatchObject({
      timestamp: T,
    });
    await expectCode(
      () =>
        scheme.verify({
          headers: {
            ...headers,
            'x-zm-signature': headers['x-zm-signature'].toUpperCase().replace('V0', 'v0'),
          },
          body,
        }),
      'malformed_header',
    );
    await expectCode(
      () => scheme.verify({ headers: { 'x-zm-request-timestamp': String(T) }, body }),
      'missing_header',
    );
    await expectCode(
      () => scheme.verify({ headers: { ...headers, 'x-zm-request-timestamp': `${T}.5` }, body }),
      'malformed_header',
    );
  });

  it('accepts any secret of a rotation', async () => {
    const rotating = zoom.scheme({ secret: ['previous-token', secret], now: clockAt(T) });
    expect((await rotating.verify({ headers, body })).timestamp).toBe(T);
  });

  it('answers endpoint.url_validation with the HMAC of plainToken', async () => {
    const validation = {
      event: 'endpoint.url_validation',
      payload: { plainToken: 'qgg8vlvZRS6UYooatFL8Aw' },
      event_ts: 1,
    };
    const answer = await zoom.handshake({}, validation, { secret });
    expect(answer?.status).toBe(200);
    expect(JSON.parse(answer?.body ?? '')).toEqual({
      plainToken: 'qgg8vlvZRS6UYooatFL8Aw',
      encryptedToken: createHmac('sha256', secret).update('qgg8vlvZRS6UYooatFL8Aw').digest('hex'),
    });
    expect(await zoom.handshake({}, JSON.parse(body), { secret })).toBeUndefined();
  });
});
