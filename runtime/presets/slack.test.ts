import { describe, expect, it } from 'vitest';
import { clockAt, expectCode, tamper } from '../../test/presets/helpers.js';
import { providers } from './registry.js';
import { slackRetryNumber } from './slack.js';

const { slack } = providers;

// The worked example of https://api.slack.com/authentication/verifying-requests-from-slack
const docSecret = '8f742231b10e8888abcd99yyyzzz85a5';
const docTimestamp = 1531420618;
const docBody =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const docSignature = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';

const event = JSON.stringify({
  token: 'x',
  team_id: 'T1',
  type: 'event_callback',
  event_id: 'Ev08MFMKH6',
  event_time: 1_732_000_000,
  event: { type: 'app_mention', text: 'hi', user: 'U1' },
});

describe('slack preset', () => {
  const scheme = slack.scheme({ secret: docSecret, now: clockAt(docTimestamp) });

  it("reproduces Slack's documented example", async () => {
    const headers = { 'X-Slack-Signature': docSignature, 'X-Slack-Request-Timestamp': String(docTimestamp) };
    expect(await scheme.verify({ headers, body: docBody })).toEqual({ timestamp: docTimestamp });
    expect(await scheme.sign({ id: 'x', timestamp: docTimestamp, body: docBody })).toEqual(headers);
    const parsed = slack.parseBody(docBody, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(slack.eventType({}, parsed)).toBe('/webhook-collect');
  });

  it('rejects tampered bodies, wrong secrets, stale and future timestamps', async () => {
    const headers = { 'X-Slack-Signature': docSignature, 'X-Slack-Request-Timestamp': String(docTimestamp) };
    await expectCode(() => scheme.verify({ headers, body: tamper(docBody) }), 'invalid_signature');
    await expectCode(
      () => slack.scheme({ secret: 'other', now: clockAt(docTimestamp) }).verify({ headers, body: docBody }),
      'invalid_signature',
    );
    await expectCode(
      () =>
        slack
          .scheme({ secret: docSecret, now: clockAt(docTimestamp + 301) })
          .verify({ headers, body: docBody }),
      'timestamp_too_old',
    );
    await expectCode(
      () =>
        slack
          .scheme({ secret: docSecret, now: clockAt(docTimestamp - 301) })
          .verify({ headers, body: docBody }),
      'timestamp_too_new',
    );
  });

  it('reports missing and malformed headers', async () => {
    const ts = String(docTimestamp);
    await expectCode(
      () => scheme.verify({ headers: { 'X-Slack-Request-Timestamp': ts }, body: docBody }),
      'missing_header',
    );
    await expectCode(
      () => scheme.verify({ headers: { 'X-Slack-Signature': docSignature }, body: docBody }),
      'missing_header',
    );
    for (const [signature, timestamp] of [
      [docSignature.replace('v0=', 'v1='), ts],
      ['v0=xyz', ts],
      [docSignature.slice(0, -2), ts],
      [docSignature, '15314206l8'],
      [docSignature, '-1'],
    ] as const) {
      await expectCode(
        () =>
          scheme.verify({
            headers: { 'X-Slack-Signature': signature, 'X-Slack-Request-Timestamp': timestamp },
            body: docBody,
          }),
        'malformed_header',
      );
    }
  });

  it('answers url_verification through the handshake, only for that body type', () => {
    const challenge = {
      token: 't',
      challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
      type: 'url_verification',
    };
    expect(slack.handshake({}, challenge)).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ challenge: challenge.challenge }),
    });
    expect(slack.handshake({}, JSON.parse(event))).toBeUndefined();
  });

  it('reads Events API ids and types; unwraps interactivity payloads; ack-fast by default', () => {
    const parsed = slack.parseBody(event, { 'content-type': 'application/json' });
    expect(slack.eventId({}, parsed)).toBe('Ev08MFMKH6');
    expect(slack.eventType({}, parsed)).toBe('app_mention');
    expect(slack.defaultMode).toBe('ack-fast');
    const interaction = `payload=${encodeURIComponent(JSON.stringify({ type: 'block_actions', trigger_id: '1.2' }))}`;
    const unwrapped = slack.parseBody(interaction, { 'Content-Type': 'application/x-www-form-urlencoded' });
    expect(slack.eventType({}, unwrapped)).toBe('block_actions');
    // Without event_id the signature (which covers a fresh timestamp) identifies the request.
    expect(slack.eventId({ 'x-slack-signature': docSignature }, unwrapped)).toMatch(
      /^slack-signature:[0-9a-f]{64}$/,
    );
    expect(slackRetryNumber({ 'X-Slack-Retry-Num': '2', 'X-Slack-Retry-Reason': 'http_timeout' })).toBe(2);
    expect(slackRetryNumber({})).toBe(0);
  });
});
